import { openDataKey } from '../../src/shared/crypto/data-key';
import type { PiiCipher } from '../../src/shared/crypto/pii-cipher';
import type { LeadDoc, LeadKeyDoc } from '../../src/shared/mongo/documents';
import { processorParts } from '../../src/processor';
import { ManagerClient } from '../support/manager-client';
import { PartnerClient } from '../support/partner-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

// Erasure by crypto-shredding (issue 14.5) on the real servers: the lead's own data key is
// destroyed, its claims, hashes and ciphertexts go through its owner, and nothing readable is left.
let app: TestApp;
let manager: ManagerClient;
let partner: PartnerClient;
let partnerId: string;
let seq = 0;
const phone = () => `+4917612${String(340000 + ++seq)}`;
const DAY_MS = 86_400_000;

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'ingress,processor', PERSONAL_DATA_RETENTION_DAYS: '30' });
  manager = new ManagerClient(app.url);
  const created = (await manager.post<{ id: string; api_key: string; hmac_secret: string }>('/api/affiliates', { name: 'Erasable' })).body;
  partnerId = created.id;
  partner = new PartnerClient(app.url, created);
});

afterAll(async () => {
  await app?.destroy();
});

const db = () => app.runtime.mongo.db;
const leadDoc = (id: string) => app.runtime.mongo.collections.leads.findOne({ _id: id }) as Promise<LeadDoc>;

async function everyDocument(): Promise<{ collection: string; doc: unknown }[]> {
  const names = (await db().listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
  const all = await Promise.all(names.map(async (n) => (await db().collection(n).find().toArray()).map((doc) => ({ collection: n, doc }))));
  return all.flat();
}

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === 'object' && !(value instanceof Date)) return Object.values(value).flatMap(strings);
  return [];
}

// Every cipher that could still open something: the keyring, and every lead key left in any day.
async function remainingCiphers(): Promise<PiiCipher[]> {
  const keys = (await everyDocument()).filter((d) => d.collection.startsWith('lead_keys_')).map((d) => d.doc as LeadKeyDoc);
  return [app.runtime.cipher, ...keys.map((k) => openDataKey(app.runtime.cipher, k.dek_enc))];
}

async function readableAnywhere(plaintexts: string[]): Promise<string[]> {
  const docs = await everyDocument();
  const found: string[] = [];
  const ciphers = await remainingCiphers();
  for (const { collection, doc } of docs) {
    for (const text of strings(doc)) {
      if (plaintexts.some((p) => text.includes(p))) found.push(`${collection}: plaintext`);
      if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(text)) continue;
      for (const cipher of ciphers) {
        let opened: string | null = null;
        try {
          opened = cipher.decrypt(text);
        } catch {
          // not this cipher's
        }
        if (opened !== null && plaintexts.some((p) => opened.includes(p))) found.push(`${collection}: decryptable ciphertext`);
      }
    }
  }
  return found;
}

async function submit(body: Record<string, unknown>): Promise<string> {
  const res = await partner.submitLead(body);
  expect(res).toMatchObject({ status: 200, body: { status: 'accepted' } });
  return res.body.id as string;
}

const erased = (id: string) => until(async () => {
  const res = await manager.get<{ personal_data: string }>(`/api/leads/${id}`);
  return res.body.personal_data === 'erased' ? res.body : null;
}, 20000, `lead ${id} to be erased`);

describe('DELETE /api/leads/{id}/personal-data', () => {
  it('leaves no plaintext and no decryptable ciphertext, keeps status, history and the status lookup, and stops dedup matching', async () => {
    const p = phone();
    const PLAIN = [p, 'erase.me@example.com', 'Philippa', 'Quarrington', '203.0.113.66', 'EraseAgent/1.0', 'erase-meta-value'];
    const id = await submit({
      phone: p, email: 'Erase.Me@example.com', first_name: 'Philippa', last_name: 'Quarrington', ip: '203.0.113.66',
      user_agent: 'EraseAgent/1.0', metadata: { note: 'erase-meta-value' }, country: 'DE', external_id: 'erase-1',
    });
    const before = await leadDoc(id);
    // Readable before: the stores do hold the lead's personal data, under its own key.
    expect(await readableAnywhere(PLAIN)).not.toEqual([]);
    expect(await partner.submitLead({ phone: p, external_id: 'erase-dup' })).toMatchObject({ status: 409, body: { status: 'duplicate', id } });

    const res = await manager.send<Record<string, unknown>>('DELETE', `/api/leads/${id}/personal-data`);
    expect(res).toMatchObject({ status: 202, body: { id, personal_data: 'erasing', key_destroyed_at: expect.any(String) } });
    // The key is gone when the answer comes: nothing can read the lead from then on.
    expect(await readableAnywhere(PLAIN)).toEqual([]);

    const view = await erased(id);
    expect(view).toMatchObject({ id, status: before.status, personal_data: 'erased', personal_erased_at: expect.any(String), external_id: 'erase-1', details: { country: 'DE' } });
    const after = await leadDoc(id);
    for (const f of ['phone_enc', 'phone_hash', 'email_enc', 'email_hash', 'personal_enc']) expect(after).not.toHaveProperty(f);
    expect(after.history).toEqual(before.history); // no entry, so no event and no callback
    expect(await readableAnywhere(PLAIN)).toEqual([]);
    const hashes = [before.phone_hash, before.email_hash].filter(Boolean) as string[];
    expect(strings((await everyDocument()).map((d) => d.doc)).filter((s) => hashes.some((h) => s.includes(h)))).toEqual([]);

    expect(await partner.leadStatus('erase-1')).toMatchObject({ status: 200, body: { id, status: before.status } });
    // The same phone and email are new again.
    const again = await partner.submitLead({ phone: p, email: 'erase.me@example.com', external_id: 'erase-2' });
    expect(again).toMatchObject({ status: 200, body: { status: 'accepted' } });
    expect(again.body.id).not.toBe(id);

    const audit = await manager.get<{ items: { action: string; target: string; affiliate_id: string }[] }>('/api/audit-log?action=lead.erase_personal_data');
    expect(audit.body.items).toEqual([expect.objectContaining({ action: 'lead.erase_personal_data', target: id, affiliate_id: partnerId })]);
  });

  it('is repeatable, and answers 404 for an unknown lead and 422 for an id no lead can have, changing nothing', async () => {
    const id = await submit({ phone: phone(), external_id: 'erase-twice' });
    expect((await manager.send('DELETE', `/api/leads/${id}/personal-data`)).status).toBe(202);
    await erased(id);
    const first = await leadDoc(id);
    expect((await manager.send('DELETE', `/api/leads/${id}/personal-data`)).status).toBe(202);
    await new Promise((r) => setTimeout(r, 1000));
    expect((await leadDoc(id)).personal_erased_at).toEqual(first.personal_erased_at);

    const auditBefore = (await manager.get<{ items: unknown[] }>('/api/audit-log?action=lead.erase_personal_data&limit=200')).body.items.length;
    expect(await manager.send('DELETE', '/api/leads/le-999999999/personal-data')).toMatchObject({ status: 404, body: { error: 'not_found' } });
    expect(await manager.send('DELETE', `/api/leads/${'x'.repeat(65)}/personal-data`)).toMatchObject({ status: 422, body: { error: 'invalid_request' } });
    expect(await manager.withToken(null).send('DELETE', `/api/leads/${id}/personal-data`)).toMatchObject({ status: 401 });
    expect((await manager.get<{ items: unknown[] }>('/api/audit-log?action=lead.erase_personal_data&limit=200')).body.items).toHaveLength(auditBefore);
  });
});

describe('retention (PERSONAL_DATA_RETENTION_DAYS)', () => {
  it("erases every lead of a day past the retention the same way, from that day's keys alone, and drops them at once", async () => {
    const p = phone();
    const ids = [await submit({ phone: p, email: 'old.lead@example.com', first_name: 'Ottoline', external_id: 'old-1' }), await submit({ phone: phone(), external_id: 'old-2' })];
    const days = async () => (await db().listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).filter((n) => n.startsWith('lead_keys_'));
    expect(await days()).not.toEqual([]);
    const { retention } = processorParts(app.runtime);
    // Nothing is past the retention today.
    expect(await retention.run(new Date())).toEqual({ days: [], leads: 0 });
    // 31 days on, today's keys are past it: commands for each lead, then the day is dropped.
    const run = await retention.run(new Date(Date.now() + 31 * DAY_MS));
    expect(run.leads).toBeGreaterThanOrEqual(2);
    expect(await days()).toEqual([]);
    expect(await readableAnywhere([p, 'old.lead@example.com', 'Ottoline'])).toEqual([]);
    for (const id of ids) await erased(id);
    expect(await partner.submitLead({ phone: p, external_id: 'old-3' })).toMatchObject({ status: 200, body: { status: 'accepted' } });
  });
});
