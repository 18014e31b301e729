import type { LeadEvent } from '../../src/shared/schemas';
import { ManagerClient } from '../support/manager-client';
import { PartnerClient } from '../support/partner-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { TopicProbe, until } from '../support/topic-probe';

// Fraud signals at intake on the real servers: countries of IP, phone and declaration,
// disposable email domains, bursts per IP and subnet counted across processor instances, the risk
// on the lead in the manager API and the agents' view, and the partner's threshold.
let app: TestApp;
let manager: ManagerClient;
let events: TopicProbe<LeadEvent>;
let seq = 0;
const phoneDe = () => `+4915233${String(100000 + ++seq)}`;
const phoneUs = () => `+1212555${String(1000 + ++seq).slice(-4)}`;

beforeAll(async () => {
  app = await startTestApp({
    ROLE: 'ingress,processor',
    RISK_BURST_PER_IP: '3',
    RISK_BURST_PER_SUBNET: '6',
    RISK_BURST_WINDOW_S: '600',
  });
  manager = new ManagerClient(app.url);
  events = await new TopicProbe<LeadEvent>(app.runtime, 'leadEvents').start();
});

afterAll(async () => {
  await events?.stop();
  await app?.destroy();
});

async function newPartner(settings: Record<string, unknown>): Promise<{ id: string; client: PartnerClient }> {
  const res = await manager.post<{ id: string; api_key: string; hmac_secret: string }>('/api/affiliates', {
    name: 'Risky',
    ...settings,
  });
  expect(res.status).toBe(201);
  return { id: res.body.id, client: new PartnerClient(app.url, res.body) };
}

type Risk = { score: number; reasons: string[]; ip_country: string | null };
const riskOf = async (id: string) => (await manager.get<{ risk: Risk }>(`/api/leads/${id}`)).body.risk;

it('scores a consistent lead 0 and a lead whose IP, phone and declared country disagree, with a disposable email, high', async () => {
  const { client } = await newPartner({});
  const clean = await client.submitLead({ phone: phoneUs(), ip: '8.8.8.8', country: 'US', email: 'ann@example.com' });
  expect(clean).toMatchObject({ status: 200, body: { status: 'accepted' } });
  expect(await riskOf(clean.body.id as string)).toEqual({ score: 0, reasons: [], ip_country: 'US' });

  const odd = await client.submitLead({
    phone: phoneDe(),
    ip: '81.2.69.142',
    country: 'FR',
    email: 'burner@mailinator.com',
  });
  expect(odd).toMatchObject({ status: 200, body: { status: 'accepted' } });
  expect(await riskOf(odd.body.id as string)).toEqual({
    score: 100,
    ip_country: 'GB',
    reasons: [
      'ip_country_mismatch_phone',
      'ip_country_mismatch_declared',
      'phone_country_mismatch_declared',
      'disposable_email',
    ],
  });
});

it("rejects at the partner's risk_threshold with risk_rejected and lead.rejected, and accepts below it", async () => {
  const { client } = await newPartner({ risk_threshold: 40 });
  // A private IP has no country: only the phone against the declared country counts (20).
  const below = await client.submitLead({ phone: phoneDe(), ip: '10.20.30.40', country: 'AT' });
  expect(below).toMatchObject({ status: 200, body: { status: 'accepted' } });
  expect((await riskOf(below.body.id as string)).score).toBe(20);

  const rejected = await client.submitLead({
    phone: phoneDe(),
    ip: '85.214.132.117',
    country: 'DE',
    email: 'x@mailinator.com',
    external_id: 'risky-1',
  });
  expect(rejected).toMatchObject({ status: 422, body: { id: null, status: 'rejected', reason: 'risk_rejected' } });
  const lookup = await client.leadStatus('risky-1');
  expect(lookup).toMatchObject({ status: 200, body: { status: 'rejected' } });
  const leadId = lookup.body.id as string;
  await events.waitFor((es) => es.some((e) => e.lead_id === leadId));
  expect(events.values().filter((e) => e.lead_id === leadId)).toEqual([
    expect.objectContaining({ event: 'lead.rejected', reason: 'risk_rejected' }),
  ]);
  expect(await manager.get(`/api/leads/${leadId}`)).toMatchObject({
    body: { status: 'rejected', reason: 'risk_rejected', risk: { score: 40, reasons: ['disposable_email'] } },
  });
});

it('counts a burst from one IP and from one subnet across processor instances: exactly the leads over the limit are flagged', async () => {
  const second = await startTestApp({}, { ...app.config, roles: ['processor'] } as typeof app.config);
  try {
    const { client } = await newPartner({});
    // Phones spread the commands over every partition, so both processors decide some of them.
    const fromIp = await Promise.all(
      Array.from({ length: 7 }, () => client.submitLead({ phone: phoneDe(), ip: '85.214.10.20', country: 'DE' })),
    );
    const ipReasons = await Promise.all(fromIp.map(async (r) => (await riskOf(r.body.id as string)).reasons));
    expect(ipReasons.filter((r) => r.includes('ip_burst'))).toHaveLength(7 - 3);
    expect(ipReasons.filter((r) => r.includes('subnet_burst'))).toHaveLength(7 - 6);

    const fromSubnet = await Promise.all(
      Array.from({ length: 8 }, (_v, i) =>
        client.submitLead({ phone: phoneDe(), ip: `85.214.77.${10 + i}`, country: 'DE' }),
      ),
    );
    const subnetReasons = await Promise.all(fromSubnet.map(async (r) => (await riskOf(r.body.id as string)).reasons));
    expect(subnetReasons.filter((r) => r.includes('subnet_burst'))).toHaveLength(8 - 6);
    expect(subnetReasons.filter((r) => r.includes('ip_burst'))).toHaveLength(0);
    // The counters hold keyed hashes only, never an address.
    const keys = await app.runtime.redis.keys(`${app.config.redis.prefix}burst:*`);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.join(' ')).not.toMatch(/85\.214/);
  } finally {
    await second.stop();
  }
});

it("shows the risk in the agents' view", async () => {
  const { client } = await newPartner({});
  const agent = (await manager.post<{ id: string }>('/api/agents', { name: 'Risk reader', countries: ['NL'] })).body;
  const sent = await client.submitLead({ phone: '+31612345678', ip: '8.8.4.4', country: 'NL' });
  const id = sent.body.id as string;
  const page = await until(
    async () => {
      const res = await manager.get<{ items: { id: string; risk: Risk }[] }>(`/api/agents/${agent.id}/leads`);
      return res.body.items.some((l) => l.id === id) ? res.body : null;
    },
    15000,
    'the lead in the agent view',
  );
  expect(page.items.find((l) => l.id === id)?.risk).toEqual({
    score: 60,
    reasons: ['ip_country_mismatch_phone', 'ip_country_mismatch_declared'],
    ip_country: 'US',
  });
  expect(await manager.get('/api/agents/ag-nobody/leads')).toMatchObject({ status: 404 });
});

it('refuses a bad risk_threshold with 422 and changes nothing', async () => {
  const { id } = await newPartner({ risk_threshold: 70 });
  for (const risk_threshold of [0, 101, 'high', 2.5]) {
    expect(await manager.patch(`/api/affiliates/${id}`, { risk_threshold })).toMatchObject({
      status: 422,
      body: { error: 'invalid_request' },
    });
  }
  expect((await manager.get(`/api/affiliates/${id}`)).body).toMatchObject({ risk_threshold: 70 });
  expect((await manager.patch(`/api/affiliates/${id}`, { risk_threshold: null })).body).toMatchObject({
    risk_threshold: null,
  });
});
