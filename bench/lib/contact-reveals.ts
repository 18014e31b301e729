import { Pool } from 'undici';
import { newDataKey } from '../../src/shared/crypto/data-key';
import { sealPersonal } from '../../src/shared/crypto/personal-data';
import { PiiCipher } from '../../src/shared/crypto/pii-cipher';
import { loadConfig } from '../../src/shared/config';
import type { Mongo } from '../../src/shared/mongo/client';
import type { LeadDoc, LeadKeyDoc } from '../../src/shared/mongo/documents';
import { IntakeKeyStore } from '../../src/shared/store/intake-keys';
import { LeadKeyStore } from '../../src/shared/store/lead-keys';
import { json, timed } from '../scenarios/manager-access';
import { logDirOf, type BenchContext } from './context';
import { MANAGER_TOKEN } from './env';
import { startRole, type RoleProcess } from './roles';
import { summarise, type Summary } from './stats';

const CHUNK = 1000;
const OPEN = new Set(['assigned', 'contacted']);

export interface RevealBench {
  stored: number; // leads in the store, each with its data key in lead_keys_<day>
  leadAt(n: number): LeadDoc; // lead n (1..stored) as the scenario stored it
  requests: number;
}

// GET /api/leads/{id}/contact over a scenario's stored leads: every lead's data key is stored where
// the processor keeps it (LeadKeyStore, lead_keys_<day>), and the contact of each lead to be revealed
// is sealed with its own key (set on the stored lead). Then the ingress role (where the manager runs)
// answers a CRM's service account acting for each lead's agent, one request at a time: the token, the
// lead and the decision, the key, the agent's quota in Redis (raised so it is taken, never hit), the
// audit entry, the decryption and the answer.
export async function timeContactReveals(
  ctx: BenchContext,
  env: Record<string, string>,
  mongo: Mongo,
  o: RevealBench,
): Promise<Summary> {
  const config = loadConfig({ ...env, ROLE: 'processor' });
  const keyring = new PiiCipher(config.crypto.encryptionKeys, config.crypto.activeKeyId);
  const targets = await sealTargets(mongo, keyring, o);
  let app: RoleProcess | null = null;
  let pool: Pool | null = null;
  try {
    app = await startRole(
      'ingress',
      { ...env, CONTACT_REVEALS_PER_HOUR: '100000' },
      { logDir: logDirOf(ctx, 'manager-views'), nodeOptions: ctx.opts.nodeOptions },
    );
    pool = new Pool(app.url, { connections: 1, pipelining: 1 });
    const crm = await json<{ token: string }>(
      pool,
      'POST',
      '/api/service-accounts',
      { authorization: `Bearer ${MANAGER_TOKEN}` },
      { name: 'CRM bench', role: 'agent', expires_in_days: 1 },
      201,
    );
    const headers = { authorization: `Bearer ${crm.token}` };
    const path = (l: LeadDoc) => `/api/leads/${l._id}/contact?agent_id=${l.agent_id}`;
    for (let i = 0; i < 50; i++) await timed(pool, path(targets[i % targets.length]!), headers); // warm-up
    const ms: number[] = [];
    for (let i = 0; i < o.requests; i++) ms.push(await timed(pool, path(targets[i]!), headers));
    const s = summarise(ms);
    ctx.log(`manager-views: contact reveal over HTTP: p50 ${s.p50} ms, p99 ${s.p99} ms`);
    return s;
  } finally {
    await pool?.close();
    await app?.stop();
  }
}

// Keys for every stored lead (one wrapped key's bytes for the leads not revealed), and a contact
// sealed with a key of its own for `requests` open leads spread over the whole range.
async function sealTargets(mongo: Mongo, keyring: PiiCipher, o: RevealBench): Promise<LeadDoc[]> {
  const step = Math.max(1, Math.floor(o.stored / (o.requests * 2)));
  const targets: LeadDoc[] = [];
  const keys = new Map<number, string>();
  for (let n = 1; n <= o.stored && targets.length < o.requests; n += step) {
    const lead = o.leadAt(n);
    if (!OPEN.has(lead.status) || lead.agent_id === null) continue;
    const key = newDataKey(keyring);
    keys.set(n, key.wrapped);
    await mongo.collections.leads.updateOne(
      { _id: lead._id },
      {
        $set: {
          phone_enc: key.cipher.encrypt(`+4915112${String(n).padStart(6, '0')}`),
          email_enc: key.cipher.encrypt(`lead${n}@bench.example`),
          personal_enc: sealPersonal(key.cipher, { ip: '192.0.2.1', first_name: 'Bench', last_name: `Lead ${n}` }),
          language: 'de',
        },
      },
    );
    targets.push(lead);
  }
  if (targets.length < o.requests) throw new Error(`only ${targets.length} open leads to reveal`);
  const store = new LeadKeyStore(mongo.db, new IntakeKeyStore(mongo.db));
  const filler = newDataKey(keyring).wrapped;
  for (let from = 1; from <= o.stored; from += CHUNK) {
    const docs: LeadKeyDoc[] = [];
    for (let n = from; n < Math.min(from + CHUNK, o.stored + 1); n++) {
      const lead = o.leadAt(n);
      docs.push({ _id: lead._id, dek_enc: keys.get(n) ?? filler, created_at: lead.created_at });
    }
    await store.insertNew(docs);
  }
  return targets;
}
