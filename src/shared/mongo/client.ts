import { MongoClient, MongoServerError, type Collection, type Db } from 'mongodb';
import type { Config } from '../config';
import type {
  AgentActivityDoc,
  AgentDoc,
  AuditDoc,
  ClientDoc,
  IdBlockDoc,
  DeliveryBacklogDoc,
  DeliveryBlockDoc,
  PartitionEpochDoc,
  PartnerKeyDoc,
  DeliveryDoc,
  DepositDoc,
  LeadDoc,
  LeadRefDoc,
  EndpointHealthDoc,
  ParkedMessageDoc,
  PartnerDoc,
  ReplayJobDoc,
  WaitingLeadDoc,
} from './documents';
import type { ListEntryDoc } from '../store/list-index';

export interface Collections {
  partners: Collection<PartnerDoc>;
  partnerKeys: Collection<PartnerKeyDoc>;
  leads: Collection<LeadDoc>;
  leadRefs: Collection<LeadRefDoc>;
  waitingLeads: Collection<WaitingLeadDoc>;
  parkedMessages: Collection<ParkedMessageDoc>;
  idBlocks: Collection<IdBlockDoc>;
  agents: Collection<AgentDoc>;
  agentActivity: Collection<AgentActivityDoc>;
  clients: Collection<ClientDoc>;
  deposits: Collection<DepositDoc>;
  deliveries: Collection<DeliveryDoc>;
  deliveryBlocks: Collection<DeliveryBlockDoc>;
  deliveryBacklogs: Collection<DeliveryBacklogDoc>;
  blockEpochs: Collection<PartitionEpochDoc>;
  endpointHealth: Collection<EndpointHealthDoc>;
  replayJobs: Collection<ReplayJobDoc>;
  audit: Collection<AuditDoc>;
  // List read models (src/shared/store/list-index.ts): one per writer.
  deliveryList: Collection<ListEntryDoc>;
  leadList: Collection<ListEntryDoc>;
  auditList: Collection<ListEntryDoc>;
}

export interface Mongo {
  client: MongoClient;
  db: Db;
  collections: Collections;
}

// The driver checks each pool's minimum size every 100 ms, an option it neither documents nor
// accepts from the caller: with no minimum (minPoolSize 0) a check only re-arms its timer, ten
// wake-ups a second of a process at rest. Every pool is built from the client's parsed options, so
// it is set there before connecting; a closed connection is still dropped when it is checked out.
const POOL_CHECK_MS = 60_000;

export async function connectMongo(config: Pick<Config, 'mongo'>): Promise<Mongo> {
  // retryWrites off: FerretDB 1.x has no sessions; our writes are idempotent and retried by the callers.
  // monitorCommands: the commands and documents of each collection are metrics (command-metrics.ts).
  const client = new MongoClient(config.mongo.url, {
    retryWrites: false,
    serverSelectionTimeoutMS: 5000,
    maxPoolSize: 50,
    monitorCommands: true,
  });
  (client.options as { minPoolSizeCheckFrequencyMS?: number }).minPoolSizeCheckFrequencyMS = POOL_CHECK_MS;
  await client.connect();
  const db = client.db(config.mongo.db);
  const collections: Collections = {
    partners: db.collection('partners'),
    partnerKeys: db.collection('partner_keys'),
    leads: db.collection('leads'),
    leadRefs: db.collection('lead_refs'),
    waitingLeads: db.collection('waiting_leads'),
    parkedMessages: db.collection('parked_messages'),
    idBlocks: db.collection('id_blocks'),
    agents: db.collection('agents'),
    agentActivity: db.collection('agent_activity'),
    clients: db.collection('clients'),
    deposits: db.collection('deposits'),
    deliveries: db.collection('deliveries'),
    deliveryBlocks: db.collection('delivery_blocks'),
    deliveryBacklogs: db.collection('delivery_backlogs'),
    blockEpochs: db.collection('delivery_block_epochs'),
    endpointHealth: db.collection('endpoint_health'),
    replayJobs: db.collection('replay_jobs'),
    audit: db.collection('audit_log'),
    deliveryList: db.collection('delivery_list'),
    leadList: db.collection('lead_list'),
    auditList: db.collection('audit_list'),
  };
  return { client, db, collections };
}

// Indexes every role relies on; createIndex is idempotent so each role may run it at start. Hot
// paths read by _id only (lead_refs stands in for a (partner, external_id) index); these serve
// the manager's queries and the id allocator's start.
export async function ensureIndexes(c: Collections): Promise<void> {
  await Promise.all([
    c.partners.createIndex({ api_key_hash: 1 }, { unique: true, name: 'api_key_hash_unique' }),
    c.idBlocks.createIndex({ sequence: 1, block: 1 }, { unique: true, name: 'sequence_block_unique' }),
    c.clients.createIndex({ lead_id: 1 }, { unique: true, name: 'lead_id_unique' }),
    c.deposits.createIndex({ lead_id: 1 }, { name: 'lead_id' }),
    c.deliveryBlocks.createIndex({ partition: 1 }, { name: 'partition' }),
    c.deliveryBacklogs.createIndex({ partition: 1 }, { name: 'partition' }),
    c.endpointHealth.createIndex({ state: 1 }, { name: 'state' }),
    c.replayJobs.createIndex({ partition: 1, state: 1 }, { name: 'partition_state' }),
    c.agents.createIndex({ supervisor_id: 1 }, { name: 'supervisor_id' }), // a supervisor's team (workspace)
    ...RETIRED_INDEXES.map(([collection, name]) =>
      c[collection].dropIndex(name).catch((err: unknown) => {
        if (!(err instanceof MongoServerError && (err.code === INDEX_NOT_FOUND || err.code === NAMESPACE_NOT_FOUND)))
          throw err;
      }),
    ),
  ]);
}

// Indexes of the manager's lists before they were read models: dropped, as every insert paid for them.
const RETIRED_INDEXES: [keyof Collections, string][] = [
  ['deliveries', 'state_created_at'],
  ['deliveries', 'partner_state'],
  ['deliveries', 'partner_created_at'],
  ['audit', 'partner_at'],
];
const INDEX_NOT_FOUND = 27;
const NAMESPACE_NOT_FOUND = 26;

export function isDuplicateKey(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === 11000;
}
