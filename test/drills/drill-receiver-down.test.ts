import { loadConfig } from '../../src/shared/config';
import type { DeliveryTask } from '../../src/shared/schemas';
import { CallbackReceiver } from '../support/callback-receiver';
import { expectNothingLost } from '../support/drill-checks';
import { DRILL_ENV } from '../support/drill-partner';
import { ManagerClient } from '../support/manager-client';
import { SteadyLoad } from '../support/steady-load';
import { startTestApp, type TestApp } from '../support/test-app';
import { testEnv } from '../support/test-config';
import { TopicProbe, until } from '../support/topic-probe';

// Fault drill: a partner's receiver is down (nothing listens on its port) for longer than the whole
// retry schedule (1, 1, 1, 1 s here). Every delivery ends dead after its 5 attempts and lands on the
// dead topic; nothing is sent once it is dead, even when the receiver is back; a manager's retry
// through the API (one delivery, then the bulk endpoint) delivers them all, each exactly once.
const PATH = '/partner-hook';
let app: TestApp;
let manager: ManagerClient;
let receiver: CallbackReceiver;
let dead: TopicProbe<DeliveryTask>;

type Delivery = {
  id: string;
  state: string;
  attempts_made: number;
  attempts_left: number;
  last_http_status: number | null;
  last_error: string | null;
  attempts: { at: string }[];
  manual_retries: { by: string }[];
  event_id: string;
};
type Page = { items: Delivery[]; next_offset: number | null };

beforeAll(async () => {
  // The circuit stays closed (ENDPOINT_CIRCUIT_FAILURES): this drill follows every delivery to the
  // end of its retry schedule; dispatcher-partner-isolation holds them behind an open circuit.
  app = await startTestApp(
    {},
    loadConfig(testEnv({ ...DRILL_ENV, CALLBACK_TIMEOUT_MS: '1000', ENDPOINT_CIRCUIT_FAILURES: '1000' })),
  );
  manager = new ManagerClient(app.url);
  dead = await new TopicProbe<DeliveryTask>(app.runtime, 'callbacksDead').start();
}, 90_000);

afterAll(async () => {
  await dead?.stop();
  await receiver?.stop();
  await app?.destroy();
});

const deliveriesOf = async (partnerId: string, state: string) =>
  (await manager.get<Page>(`/api/deliveries?affiliate_id=${partnerId}&state=${state}&limit=200`)).body.items;

it('declares every delivery dead while the receiver is down, and delivers them all on a manual retry once it is back', async () => {
  receiver = await new CallbackReceiver().start();
  const port = Number(new URL(receiver.url('/')).port);
  const created = await manager.post<{ id: string; api_key: string; hmac_secret: string; callback_secret: string }>(
    '/api/affiliates',
    {
      name: 'Receiver down',
      callback_url: receiver.url(PATH),
      rate_limits: { intake_per_minute: 100000 },
    },
  );
  expect(created.status).toBe(201);
  const partner = created.body;
  expect((await manager.post('/api/agents', { name: 'Agent' })).status).toBe(201);
  await receiver.stop(); // down before the first lead

  const load = new SteadyLoad({ targets: () => [app.url], creds: partner, perSecond: 1 });
  load.burst(6);
  await load.stop();
  expect(load.runs.map((r) => r.final?.body?.status)).toEqual(Array(6).fill('accepted'));

  // 6 leads, each accepted then assigned: 12 events, 12 deliveries, each dead after 5 attempts.
  const deadOnes = await until(
    async () => {
      const items = await deliveriesOf(partner.id, 'dead');
      return items.length === 12 ? items : null;
    },
    60_000,
    'every delivery to be dead',
  );
  for (const d of deadOnes) {
    expect(d).toMatchObject({ attempts_made: 5, attempts_left: 0, last_http_status: null, manual_retries: [] });
    expect(d.last_error).toMatch(/connect|refused/i);
    const at = d.attempts.map((a) => Date.parse(a.at));
    at.slice(1).forEach((t, i) => expect(t - at[i]!).toBeGreaterThanOrEqual(1000 - 5)); // the schedule was kept
  }
  await dead.waitFor(
    (tasks) => deadOnes.every((d) => tasks.some((t) => t.delivery_id === d.id)),
    20_000,
    'the dead tasks',
  );

  // The receiver comes back on the same address; dead deliveries stay dead until a manager acts.
  receiver = await new CallbackReceiver().start(port);
  receiver.route(PATH, partner.callback_secret);
  await new Promise((r) => setTimeout(r, 2500));
  expect(receiver.at(PATH)).toHaveLength(0);

  const one = await manager.post<Delivery>(`/api/deliveries/${deadOnes[0]!.id}/retry`);
  expect(one.status).toBe(200);
  expect(one.body).toMatchObject({
    id: deadOnes[0]!.id,
    state: 'queued',
    attempts_left: 5,
    manual_retries: [{ by: expect.any(String) }],
  });
  await receiver.waitFor(PATH, 1, 20_000);
  const bulk = await manager.post<{ requeued: number }>(`/api/affiliates/${partner.id}/deliveries/retry-dead`);
  expect(bulk).toMatchObject({ status: 200, body: { requeued: 11 } });
  expect((await manager.post(`/api/deliveries/${deadOnes[1]!.id}/retry`)).status).toBe(409); // no longer dead

  const report = await expectNothingLost({
    rt: app.runtime,
    partnerId: partner.id,
    runs: load.runs,
    receiver,
    path: PATH,
  });
  expect(report.repeatedCallbacks).toBe(0); // each event exactly once
  for (const d of await deliveriesOf(partner.id, 'delivered')) {
    expect(d).toMatchObject({ attempts_made: 1, last_http_status: 200, manual_retries: [{ by: expect.any(String) }] });
    expect(d.attempts).toHaveLength(6);
  }
  const audit = (
    await manager.get<{ items: { action: string }[] }>(`/api/audit-log?affiliate_id=${partner.id}`)
  ).body.items.map((a) => a.action);
  expect(audit).toEqual(expect.arrayContaining(['delivery.retry', 'delivery.retry_dead']));
}, 150_000);
