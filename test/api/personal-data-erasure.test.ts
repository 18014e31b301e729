import { randomUUID } from 'node:crypto';
import type { TopicKey } from '../../src/shared/kafka/topics';
import type { LeadDoc, ParkedMessageDoc } from '../../src/shared/mongo/documents';
import { IntakeKeyStore } from '../../src/shared/store/intake-keys';
import { dayOf, decisionId } from '../../src/shared/store/intake-decisions';
import { recordKey } from '../../src/ingress/idempotency';
import { storedLeadCipher } from '../support/lead-keys';
import { processorParts } from '../../src/processor';
import { erasedLead } from '../support/erased-lead';
import { ManagerClient } from '../support/manager-client';
import { PartnerClient } from '../support/partner-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { PersonalDataResidue, strings } from '../support/personal-data-residue';
import { until } from '../support/topic-probe';

// Erasure by crypto-shredding on the real servers: the lead's own data key is
// destroyed, its claims, hashes and ciphertexts go through its owner, and nothing readable is left.
let app: TestApp;
let manager: ManagerClient;
let partner: PartnerClient;
let partnerId: string;
let credentials: ConstructorParameters<typeof PartnerClient>[1];
const ingresses: TestApp[] = [];
let residue: PersonalDataResidue;
let seq = 0;
const phone = () => `+4917612${String(340000 + ++seq)}`;
const DAY_MS = 86_400_000;

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'ingress,processor', PERSONAL_DATA_RETENTION_DAYS: '30' });
  manager = new ManagerClient(app.url);
  const created = (
    await manager.post<{ id: string; api_key: string; hmac_secret: string }>('/api/affiliates', { name: 'Erasable' })
  ).body;
  partnerId = created.id;
  credentials = created;
  partner = new PartnerClient(app.url, created);
  residue = new PersonalDataResidue(app.runtime);
});

afterAll(async () => {
  for (const ingress of ingresses) await ingress.stop();
  await app?.destroy();
});

// Moving the clock past INTAKE_KEY_HOURS or the retention drops this hour's intake keys too, which
// an ingress keeps a stock of (data-key-stock.ts); a real hour's keys go only long after the hour.
// Later submissions go through an ingress started after the drop.
async function freshIngress(): Promise<void> {
  const next = await startTestApp({}, { ...app.config, roles: ['ingress'] } as typeof app.config);
  ingresses.push(next);
  partner = new PartnerClient(next.url, credentials);
}

const leadDoc = (id: string) => app.runtime.mongo.collections.leads.findOne({ _id: id }) as Promise<LeadDoc>;

async function submit(body: Record<string, unknown>): Promise<string> {
  const res = await partner.submitLead(body);
  expect(res).toMatchObject({ status: 200, body: { status: 'accepted' } });
  return res.body.id as string;
}

const erased = (id: string) => erasedLead(manager, id);

describe('DELETE /api/leads/{id}/personal-data', () => {
  it('leaves no plaintext and no decryptable ciphertext, keeps status, history and the status lookup, and stops dedup matching', async () => {
    const p = phone();
    const PLAIN = [
      p,
      'erase.me@example.com',
      'Philippa',
      'Quarrington',
      '203.0.113.66',
      'EraseAgent/1.0',
      'erase-meta-value',
    ];
    const id = await submit({
      phone: p,
      email: 'Erase.Me@example.com',
      first_name: 'Philippa',
      last_name: 'Quarrington',
      ip: '203.0.113.66',
      user_agent: 'EraseAgent/1.0',
      metadata: { note: 'erase-meta-value' },
      country: 'DE',
      external_id: 'erase-1',
    });
    const before = await leadDoc(id);
    // Readable before: the stores do hold the lead's personal data, under its own key.
    expect(await residue.readableAnywhere(PLAIN)).not.toEqual([]);
    expect(await partner.submitLead({ phone: p, external_id: 'erase-dup' })).toMatchObject({
      status: 409,
      body: { status: 'duplicate', id },
    });

    const res = await manager.send<Record<string, unknown>>('DELETE', `/api/leads/${id}/personal-data`);
    expect(res).toMatchObject({
      status: 202,
      body: { id, personal_data: 'erasing', key_destroyed_at: expect.any(String) },
    });
    // The key is gone when the answer comes: nothing can read the lead from then on.
    expect(await residue.readableAnywhere(PLAIN)).toEqual([]);

    const view = await erased(id);
    expect(view).toMatchObject({
      id,
      status: before.status,
      personal_data: 'erased',
      personal_erased_at: expect.any(String),
      external_id: 'erase-1',
      details: { country: 'DE' },
    });
    const after = await leadDoc(id);
    for (const f of ['phone_enc', 'phone_hash', 'email_enc', 'email_hash', 'personal_enc'])
      expect(after).not.toHaveProperty(f);
    expect(after.history).toEqual(before.history); // no entry, so no event and no callback
    expect(await residue.readableAnywhere(PLAIN)).toEqual([]);
    const hashes = [before.phone_hash, before.email_hash].filter(Boolean) as string[];
    expect(
      strings((await residue.everyDocument()).map((d) => d.doc)).filter((s) => hashes.some((h) => s.includes(h))),
    ).toEqual([]);

    expect(await partner.leadStatus('erase-1')).toMatchObject({ status: 200, body: { id, status: before.status } });
    // The same phone and email are new again.
    const again = await partner.submitLead({ phone: p, email: 'erase.me@example.com', external_id: 'erase-2' });
    expect(again).toMatchObject({ status: 200, body: { status: 'accepted' } });
    expect(again.body.id).not.toBe(id);

    const audit = await manager.get<{ items: { action: string; target: string; affiliate_id: string }[] }>(
      '/api/audit-log?action=lead.erase_personal_data',
    );
    expect(audit.body.items).toEqual([
      expect.objectContaining({ action: 'lead.erase_personal_data', target: id, affiliate_id: partnerId }),
    ]);
  });

  it('is repeatable, and answers 404 for an unknown lead and 422 for an id no lead can have, changing nothing', async () => {
    const id = await submit({ phone: phone(), external_id: 'erase-twice' });
    expect((await manager.send('DELETE', `/api/leads/${id}/personal-data`)).status).toBe(202);
    await erased(id);
    const first = await leadDoc(id);
    expect((await manager.send('DELETE', `/api/leads/${id}/personal-data`)).status).toBe(202);
    await new Promise((r) => setTimeout(r, 1000));
    expect((await leadDoc(id)).personal_erased_at).toEqual(first.personal_erased_at);

    const entries = async () =>
      (
        await manager.get<{ items: { details: { refused?: string } }[] }>(
          '/api/audit-log?action=lead.erase_personal_data&limit=200',
        )
      ).body.items;
    const auditBefore = (await entries()).length;
    expect(await manager.send('DELETE', '/api/leads/le-999999999/personal-data')).toMatchObject({
      status: 404,
      body: { error: 'not_found' },
    });
    expect(await manager.send('DELETE', `/api/leads/${'x'.repeat(65)}/personal-data`)).toMatchObject({
      status: 422,
      body: { error: 'invalid_request' },
    });
    expect(await manager.withToken(null).send('DELETE', `/api/leads/${id}/personal-data`)).toMatchObject({
      status: 401,
    });
    // Each refusal after authentication is audited as one; the 401 is not.
    const after = await entries();
    expect(after).toHaveLength(auditBefore + 2);
    expect(after.slice(0, 2).map((e) => e.details.refused)).toEqual(['invalid_request', 'not_found']);
  });
});

describe('what an erasure leaves', () => {
  it("nothing readable in any collection, Redis key or topic of ours: not the agent's note, not the landing URL's query, not a keyed hash of the phone or email", async () => {
    const p = phone();
    const PLAIN = [p, 'note.scan@example.com', 'Wilhelmina', 'Scanlon'];
    const id = await submit({
      phone: p,
      email: 'Note.Scan@example.com',
      first_name: 'Wilhelmina',
      last_name: 'Scanlon',
      external_id: 'erase-scan',
      landing_url: `https://lp.example.com/de?email=note.scan%40example.com&phone=${encodeURIComponent(p)}&name=Wilhelmina`,
    });
    const action = {
      action_id: randomUUID(),
      lead_id: id,
      agent_id: 'ag-scan',
      status: 'contacted',
      note: `Wilhelmina Scanlon, call back on ${p}`,
      occurred_at: new Date().toISOString(),
    };
    await app.runtime.producer.send({
      topic: app.runtime.topics.agentActions,
      messages: [{ key: id, value: await app.runtime.codec.encode('agentActions', action) }],
    });
    await until(async () => ((await leadDoc(id)).status === 'contacted' ? true : null), 20000, 'the agent action');
    expect((await leadDoc(id)).landing_url).toBe('https://lp.example.com/de');

    expect((await manager.send('DELETE', `/api/leads/${id}/personal-data`)).status).toBe(202);
    await erased(id);
    // The CRM's own topics hold what the CRM sent: every other topic is ours to keep clean, the intake
    // commands included (they carry only where the lead's key was, and no hash of the person).
    const ours = (Object.keys(app.runtime.topics) as TopicKey[]).filter(
      (t) => !['agentActions', 'deposits'].includes(t),
    );
    const texts = [
      ...(await residue.everyDocumentText()),
      ...(await residue.everyRedisText()),
      ...(await residue.everyMessage(ours)),
    ];
    expect(await residue.readableIn(texts, [...PLAIN, ...residue.hashesOf(p, 'note.scan@example.com')])).toEqual([]);
  });
});

describe('the same request after the idempotency window', () => {
  it('answers with the erased lead as decided, and brings back neither its dedup claims nor a data key', async () => {
    const p = phone();
    const body = { phone: p, email: 'come.back@example.com', external_id: 'erase-again' };
    const key = `erase-again-${seq}`;
    const first = await partner.submitLead(body, { idempotencyKey: key });
    expect(first).toMatchObject({ status: 200, body: { status: 'accepted' } });
    const id = first.body.id as string;
    expect((await manager.send('DELETE', `/api/leads/${id}/personal-data`)).status).toBe(202);
    await erased(id);
    // 24 h on: the stored answer and the stored decision are gone; the external-id ref stays.
    await app.runtime.redis.del(recordKey(partnerId, key));
    await app.runtime.mongo.db
      .collection<{ _id: string }>(`intake_decisions_${dayOf(new Date())}`)
      .deleteOne({ _id: decisionId(partnerId, key) });
    const again = await partner.submitLead(body, { idempotencyKey: key });
    expect(again).toMatchObject({ status: 200, body: { id } });
    expect(await residue.readableAnywhere([p, 'come.back@example.com'])).toEqual([]);
    expect(await storedLeadCipher(app.runtime, await leadDoc(id))).toBeNull();
    // The phone is new again: the erased lead matches no one.
    expect(await partner.submitLead({ phone: p, external_id: 'erase-again-2' })).toMatchObject({
      status: 200,
      body: { status: 'accepted' },
    });
  });
});

describe('copies on Kafka of other submissions (INTAKE_KEY_HOURS)', () => {
  it("leaves a refused submission of the same person readable on no topic once the intake keys' hours are dropped", async () => {
    const p = phone();
    const PLAIN = [p, 'Bartholomew', 'dup.scan@example.com'];
    const id = await submit({ phone: p, first_name: 'Bartholomew', external_id: 'keys-1' });
    // The same person again: a duplicate, never a lead of its own, so no erasure reaches its command.
    expect(
      await partner.submitLead({
        phone: p,
        email: 'dup.scan@example.com',
        first_name: 'Bartholomew',
        external_id: 'keys-2',
      }),
    ).toMatchObject({ status: 409, body: { status: 'duplicate', id } });
    expect((await manager.send('DELETE', `/api/leads/${id}/personal-data`)).status).toBe(202);
    await erased(id);
    const commands = async () => residue.everyMessage(['intakeCommands', 'intakeDeadLetter']);
    expect(await residue.readableIn(await commands(), PLAIN)).not.toEqual([]); // the duplicate's own key is still there
    const hours = () => residue.collectionsNamed('intake_keys_');
    expect(await hours()).not.toEqual([]);
    await new IntakeKeyStore(app.runtime.mongo.db).dropExpired(
      new Date(Date.now() + 25 * 3_600_000),
      app.config.intake.keyHours,
    );
    expect(await hours()).toEqual([]);
    expect(await residue.readableIn(await commands(), PLAIN)).toEqual([]);
    await freshIngress();
  });
});

describe('parked CRM messages', () => {
  it("keeps no agent's note while an action waits for its lead", async () => {
    const note = `Call Ermengarde back on ${phone()}`;
    const action = {
      action_id: randomUUID(),
      lead_id: 'le-987654321',
      agent_id: 'ag-scan',
      status: 'contacted',
      note,
      occurred_at: new Date().toISOString(),
    };
    await app.runtime.producer.send({
      topic: app.runtime.topics.agentActions,
      messages: [{ key: action.lead_id, value: await app.runtime.codec.encode('agentActions', action) }],
    });
    const parked = (await until(
      async () => app.runtime.mongo.collections.parkedMessages.findOne({ _id: `agentActions:${action.action_id}` }),
      20000,
      'the action to be parked',
    )) as ParkedMessageDoc;
    expect(parked.value).not.toHaveProperty('note');
    expect(await residue.readableAnywhere(['Ermengarde'])).toEqual([]);
  });
});

describe('retention (PERSONAL_DATA_RETENTION_DAYS)', () => {
  it("erases every lead of a day past the retention the same way, from that day's keys alone, and drops them at once", async () => {
    const p = phone();
    const ids = [
      await submit({ phone: p, email: 'old.lead@example.com', first_name: 'Ottoline', external_id: 'old-1' }),
      await submit({ phone: phone(), external_id: 'old-2' }),
    ];
    const days = () => residue.collectionsNamed('lead_keys_');
    expect(await days()).not.toEqual([]);
    const { retention } = processorParts(app.runtime);
    // Nothing is past the retention today.
    expect(await retention.run(new Date())).toEqual({ days: [], leads: 0 });
    // 31 days on, today's keys are past it: commands for each lead, then the day is dropped.
    const run = await retention.run(new Date(Date.now() + 31 * DAY_MS));
    expect(run.leads).toBeGreaterThanOrEqual(2);
    expect(await days()).toEqual([]);
    expect(await residue.readableAnywhere([p, 'old.lead@example.com', 'Ottoline'])).toEqual([]);
    for (const id of ids) await erased(id);
    await freshIngress();
    expect(await partner.submitLead({ phone: p, external_id: 'old-3' })).toMatchObject({
      status: 200,
      body: { status: 'accepted' },
    });
  });
});
