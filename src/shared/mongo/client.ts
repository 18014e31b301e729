import { MongoClient, MongoServerError, type Collection, type Db, type MongoClientOptions } from 'mongodb';
import type { Config } from '../config';
import type {
  AgentDoc, AuditDoc, ClientDoc, IdBlockDoc, DedupClaimDoc, DeliveryDoc, DepositDoc, IntakeDecisionDoc, LeadDoc, PartnerDoc,
} from './documents';

export interface Collections {
  partners: Collection<PartnerDoc>;
  leads: Collection<LeadDoc>;
  dedupClaims: Collection<DedupClaimDoc>;
  intakeDecisions: Collection<IntakeDecisionDoc>;
  idBlocks: Collection<IdBlockDoc>;
  agents: Collection<AgentDoc>;
  clients: Collection<ClientDoc>;
  deposits: Collection<DepositDoc>;
  deliveries: Collection<DeliveryDoc>;
  audit: Collection<AuditDoc>;
}

export interface Mongo {
  client: MongoClient;
  db: Db;
  collections: Collections;
}

// extra: options added to (or overriding) ours, e.g. monitorCommands for the benchmark.
export async function connectMongo(config: Config, extra?: MongoClientOptions): Promise<Mongo> {
  // retryWrites off: FerretDB 1.x has no sessions; our writes are idempotent and retried by the callers.
  const client = new MongoClient(config.mongo.url, { retryWrites: false, serverSelectionTimeoutMS: 5000, maxPoolSize: 50, ...extra });
  await client.connect();
  const db = client.db(config.mongo.db);
  const collections: Collections = {
    partners: db.collection('partners'),
    leads: db.collection('leads'),
    dedupClaims: db.collection('dedup_claims'),
    intakeDecisions: db.collection('intake_decisions'),
    idBlocks: db.collection('id_blocks'),
    agents: db.collection('agents'),
    clients: db.collection('clients'),
    deposits: db.collection('deposits'),
    deliveries: db.collection('deliveries'),
    audit: db.collection('audit_log'),
  };
  return { client, db, collections };
}

// Indexes every role relies on; createIndex is idempotent so each role may run it at start.
export async function ensureIndexes(c: Collections): Promise<void> {
  await Promise.all([
    c.partners.createIndex({ api_key_hash: 1 }, { unique: true, name: 'api_key_hash_unique' }),
    c.leads.createIndex({ partner_id: 1, external_id: 1 }, { unique: true, name: 'partner_external_id_unique' }),
    c.leads.createIndex({ partner_id: 1, idempotency_key: 1 }, { unique: true, name: 'partner_idempotency_key_unique' }),
    c.leads.createIndex({ status: 1, created_at: 1 }, { name: 'status_created_at' }),
    c.leads.createIndex({ pending_events: 1 }, { name: 'pending_events' }),
    c.idBlocks.createIndex({ sequence: 1, block: 1 }, { unique: true, name: 'sequence_block_unique' }),
    c.intakeDecisions.createIndex({ decided_at: 1 }, { name: 'decided_at' }),
    c.dedupClaims.createIndex({ claimed_at: 1 }, { name: 'claimed_at' }),
    c.agents.createIndex({ active: 1, last_assigned_at: 1 }, { name: 'active_last_assigned' }),
    c.clients.createIndex({ lead_id: 1 }, { unique: true, name: 'lead_id_unique' }),
    c.deposits.createIndex({ lead_id: 1 }, { name: 'lead_id' }),
    c.deliveries.createIndex({ state: 1, next_attempt_at: 1 }, { name: 'state_next_attempt' }),
    c.deliveries.createIndex({ partner_id: 1, state: 1 }, { name: 'partner_state' }),
    c.audit.createIndex({ partner_id: 1, at: 1 }, { name: 'partner_at' }),
  ]);
}

export function isDuplicateKey(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === 11000;
}
