import { randomUUID } from 'node:crypto';
import { LeadIntakeClient, LeadIntakeError, verifyCallback, type RetryInfo } from '../src/index.js';
import { CallbackServer } from './callback-server.js';

// Against a running service: the partners named by the LEAD_INTAKE_* variables (sdks/README.md).
const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (see sdks/README.md)`);
  return value;
};
const baseUrl = env('LEAD_INTAKE_URL');
const client = new LeadIntakeClient({
  baseUrl,
  apiKey: env('LEAD_INTAKE_API_KEY'),
  hmacSecret: env('LEAD_INTAKE_HMAC_SECRET'),
});
const phone = () => `+44791${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
const rotatedSecrets = [env('LEAD_INTAKE_ROTATED_CALLBACK_SECRET_OLD'), env('LEAD_INTAKE_ROTATED_CALLBACK_SECRET')];
const server = new CallbackServer({ '/spec': [env('LEAD_INTAKE_CALLBACK_SECRET')], '/rotated': rotatedSecrets });

beforeAll(() => server.start(Number(env('LEAD_INTAKE_CALLBACK_PORT'))));
afterAll(() => server.stop());

const codeOf = async (p: Promise<unknown>): Promise<LeadIntakeError> => {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(LeadIntakeError);
  return e as LeadIntakeError;
};

// First: the tight partner's window frees a few seconds after the tests start.
it('waits out a 429 as long as Retry-After asks, then the lead goes through', async () => {
  const retries: RetryInfo[] = [];
  const credentials = { apiKey: env('LEAD_INTAKE_TIGHT_API_KEY'), hmacSecret: env('LEAD_INTAKE_TIGHT_HMAC_SECRET') };
  const tight = new LeadIntakeClient({ baseUrl, ...credentials, onRetry: (r) => retries.push(r) });
  const started = Date.now();
  const result = await tight.sendLead({ phone: phone() });
  expect(result).toMatchObject({ outcome: 'accepted', attempts: 2 });
  expect(retries[0]).toMatchObject({ status: 429, error: 'rate_limit_exceeded' });
  expect(retries[0]!.waitMs).toBeGreaterThanOrEqual(retries[0]!.retryAfterS! * 1000);
  expect(Date.now() - started).toBeGreaterThanOrEqual(retries[0]!.waitMs);

  // Now the window holds that lead for a minute: a deadline shorter than the wait gives up at once.
  const hurried = new LeadIntakeClient({ baseUrl, ...credentials, retry: { deadlineMs: 2000 } });
  const at = Date.now();
  const e = await codeOf(hurried.sendLead({ phone: phone() }));
  expect(e).toMatchObject({ code: 'rate_limit_exceeded', status: 429 });
  expect(e.retryAfterS).toBeGreaterThan(2);
  expect(Date.now() - at).toBeLessThan(2000);
});

it('sends a lead, answers a repeat with the same key from the first answer, and finds its status', async () => {
  const externalId = `ts-${randomUUID()}`;
  const lead = { phone: phone(), external_id: externalId, country: 'GB' };
  const first = await client.sendLead(lead);
  expect(first).toMatchObject({ outcome: 'accepted', replay: false, attempts: 1 });
  const again = await client.sendLead(lead, { idempotencyKey: first.idempotencyKey });
  expect(again).toMatchObject({ outcome: 'accepted', replay: true });
  expect(again.outcome === 'accepted' && again.leadId).toBe(first.outcome === 'accepted' && first.leadId);
  const status = await client.leadStatus(externalId);
  expect(status).toMatchObject({ external_id: externalId, our_status: 'new', is_depositor: false });
  expect(status.id).toBe(first.outcome === 'accepted' && first.leadId);

  const callback = await server.waitFor('/spec', (b) => b.external_lead_id === externalId);
  expect(callback.verdict).toBe('ok');
  const tampered = Buffer.from(callback.raw.toString('utf8').replace('"new"', '"ftd"'));
  expect(() => verifyCallback(callback.headers, tampered, env('LEAD_INTAKE_CALLBACK_SECRET'))).toThrow(
    expect.objectContaining({ code: 'invalid_signature' }),
  );
  expect(() => verifyCallback(callback.headers, callback.raw, 'cs_not_the_secret')).toThrow(
    expect.objectContaining({ code: 'invalid_signature' }),
  );
  expect(() =>
    verifyCallback(callback.headers, callback.raw, env('LEAD_INTAKE_CALLBACK_SECRET'), {
      nowS: Number(callback.headers['x-timestamp']) + 301,
    }),
  ).toThrow(expect.objectContaining({ code: 'invalid_timestamp' }));
});

it('tells a duplicate by the lead it matched', async () => {
  const p = phone();
  const first = await client.sendLead({ phone: p });
  const dup = await client.sendLead({ phone: p });
  expect(dup).toMatchObject({ outcome: 'duplicate', replay: false });
  expect(dup.outcome === 'duplicate' && dup.matchedLeadId).toBe(first.outcome === 'accepted' && first.leadId);
  expect(dup.outcome === 'duplicate' && dup.reason).toMatch(/^matched_lead:\d+$/);
});

it.each([
  [{ phone: 'not a phone' }, 'validation_error', 'invalid_format:phone'],
  [{ phone: phone(), country: 'RU' }, 'rejected', 'country_blocked:RU'],
  [{ phone: phone(), source: 'blocked-src' }, 'rejected', 'source_blocked'],
])('refuses %j with its reason', async (lead, status, reason) => {
  expect(await client.sendLead(lead)).toMatchObject({ outcome: 'refused', status, reason });
});

it('throws LeadIntakeError with the code for answers that are errors, without retrying them', async () => {
  expect(await codeOf(client.leadStatus('no-such-lead'))).toMatchObject({ code: 'not_found', status: 404 });
  const forged = new LeadIntakeClient({ baseUrl, apiKey: env('LEAD_INTAKE_API_KEY'), hmacSecret: 'hs_wrong' });
  expect(await codeOf(forged.sendLead({ phone: phone() }))).toMatchObject({ code: 'invalid_signature', status: 403 });
});

it("during a rotation's grace: the old key still sends, and either secret verifies the two-signature callback", async () => {
  const old = new LeadIntakeClient({
    baseUrl,
    apiKey: env('LEAD_INTAKE_ROTATED_API_KEY_OLD'),
    hmacSecret: env('LEAD_INTAKE_ROTATED_HMAC_SECRET_OLD'),
  });
  const externalId = `ts-rot-${randomUUID()}`;
  expect(await old.sendLead({ phone: phone(), external_id: externalId })).toMatchObject({ outcome: 'accepted' });
  const callback = await server.waitFor('/rotated', (b) => b.external_lead_id === externalId);
  expect(callback.verdict).toBe('ok');
  expect(String(callback.headers['webhook-signature']).split(' ')).toHaveLength(2);
  for (const secret of rotatedSecrets)
    expect(verifyCallback(callback.headers, callback.raw, secret).eventId).toBe(callback.headers['webhook-id']);
  const tampered = Buffer.from(callback.raw.toString('utf8').replace(externalId, 'someone-else'));
  expect(() => verifyCallback(callback.headers, tampered, rotatedSecrets)).toThrow(
    expect.objectContaining({ code: 'invalid_signature' }),
  );
  expect(() => verifyCallback(callback.headers, callback.raw, 'whsec_bm90IHRoZSBzZWNyZXQ=')).toThrow(
    expect.objectContaining({ code: 'invalid_signature' }),
  );
});

it("lists the partner's own leads by a filter, a page at a time, and reads today's report", async () => {
  const today = new Date().toISOString().slice(0, 10);
  const subId = `ts-sub-${randomUUID()}`;
  const ours: string[] = [];
  for (let i = 0; i < 3; i++) {
    const externalId = `ts-rep-${randomUUID()}`;
    expect(
      await client.sendLead({ phone: phone(), external_id: externalId, sub_id: subId, country: 'GB' }),
    ).toMatchObject({ outcome: 'accepted' });
    ours.push(externalId);
  }
  // Another partner's lead with the same sub_id is never the first partner's to see.
  const other = new LeadIntakeClient({
    baseUrl,
    apiKey: env('LEAD_INTAKE_ROTATED_API_KEY_OLD'),
    hmacSecret: env('LEAD_INTAKE_ROTATED_HMAC_SECRET_OLD'),
  });
  const theirs = `ts-other-${randomUUID()}`;
  expect(await other.sendLead({ phone: phone(), external_id: theirs, sub_id: subId })).toMatchObject({
    outcome: 'accepted',
  });

  const page = await client.listLeads({ sub_id: subId, country: 'GB' });
  expect(page.items.map((l) => l.external_id).sort()).toEqual([...ours].sort());
  expect(page.nextCursor).toBeNull();
  for (const lead of page.items) expect(lead.phone).toMatch(/^\+44 \d{2}\*\* \*\*\*\d{3}$/);

  const first = await client.listLeads({ sub_id: subId }, { limit: 2 });
  expect(first.items).toHaveLength(2);
  expect(first.nextCursor).not.toBeNull();
  const second = await client.listLeads({ sub_id: subId }, { limit: 2, cursor: first.nextCursor! });
  expect([...first.items, ...second.items].map((l) => l.external_id).sort()).toEqual([...ours].sort());

  const all: string[] = [];
  for await (const lead of client.allLeads({ sub_id: subId }, { limit: 1 })) all.push(lead.external_id);
  expect(all.sort()).toEqual([...ours].sort());
  expect(all).not.toContain(theirs);
  expect((await other.listLeads({ sub_id: subId })).items.map((l) => l.external_id)).toEqual([theirs]);

  // The report's figures are counted from the pipeline's events: wait until today's row has our leads.
  const report = await eventually(
    () => client.reports(today, today),
    (r) => (r.by_day.find((d) => d.day === today)?.accepted ?? 0) >= ours.length,
  );
  expect(report).toMatchObject({ from: today, to: today });
  expect(report.totals.accepted).toBeGreaterThanOrEqual(ours.length);
  expect(await codeOf(client.reports(today, 'not-a-day'))).toMatchObject({ code: 'invalid_request', status: 422 });
});

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((r) => setTimeout(r, 250));
  }
}
