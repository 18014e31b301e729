import type { DeliveryDoc } from '../../src/shared/mongo/documents';
import type { LeadEvent } from '../../src/shared/schemas';
import { CallbackReceiver, type Responder } from '../support/callback-receiver';
import { deliveryRecord, publishLeadEvents } from '../support/lead-events';
import { ManagerClient } from '../support/manager-client';
import { scenarioPartners } from '../support/scenario-partners';
import { startTestApp, type TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

// The partner's own signals, through the real dispatcher and retry topics:
// Retry-After on 429/503 (never earlier than asked, never earlier than the schedule, at most its
// last delay), 410 Gone (one more attempt, then dead, and the endpoint flagged gone), X-Event-Id.
const DELAYS_S = [1, 2, 3, 4];
let app: TestApp;
let manager: ManagerClient;
let receiver: CallbackReceiver;
const events: Record<string, LeadEvent> = {};

// The first answer as given, then 200.
const firstThen =
  (first: Responder): Responder =>
  (req, res, nth) =>
    nth === 1 ? first(req, res, nth) : res.writeHead(200).end('ok');

beforeAll(async () => {
  app = await startTestApp({
    ROLE: 'ingress,dispatcher',
    CALLBACK_RETRY_DELAYS_S: DELAYS_S.join(','),
    ENDPOINT_HEALTH_REPORT_MS: '200',
  });
  manager = new ManagerClient(app.url);
  receiver = await new CallbackReceiver().start();
  const scenarios: Record<string, Responder> = {
    'asks-3s': firstThen((_req, res) => res.writeHead(429, { 'retry-after': '3' }).end()),
    'asks-date': firstThen((_req, res) =>
      res.writeHead(503, { 'retry-after': new Date(Date.now() + 4000).toUTCString() }).end(),
    ),
    'asks-less': firstThen((_req, res) => res.writeHead(503, { 'retry-after': '0' }).end()),
    'asks-too-much': firstThen((_req, res) => res.writeHead(429, { 'retry-after': '3600' }).end()),
    'ignored-on-500': firstThen((_req, res) => res.writeHead(500, { 'retry-after': '3' }).end()),
    gone: (_req, res) => res.writeHead(410).end('gone'),
  };
  Object.assign(events, await scenarioPartners(app.runtime, receiver, scenarios));
  await publishLeadEvents(app.runtime, Object.values(events));
});

afterAll(async () => {
  await receiver?.stop();
  await app?.destroy();
});

const finalRecord = (name: string, state: DeliveryDoc['state']) =>
  until(
    async () => {
      const r = await deliveryRecord(app.runtime, events[name]!);
      return r?.state === state ? r : null;
    },
    30000,
    `${name} to be ${state}`,
  );

// From the end of the first attempt (when the answer was complete) to the start of the second.
async function gapMs(name: string): Promise<number> {
  await finalRecord(name, 'delivered');
  const [first, second] = receiver.at(`/${name}`);
  return second!.at - first!.at;
}

it('waits as long as a 429 asks in seconds', async () => {
  const gap = await gapMs('asks-3s');
  expect(gap).toBeGreaterThanOrEqual(3000);
  expect(gap).toBeLessThan(3000 + 1500);
});

it('waits until the HTTP date a 503 names', async () => {
  const gap = await gapMs('asks-date');
  expect(gap).toBeGreaterThanOrEqual(3000); // the date has whole seconds: at least 3 s after the answer
  expect(gap).toBeLessThan(4000 + 1500);
});

it('never retries earlier than the schedule, whatever Retry-After says', async () => {
  expect(await gapMs('asks-less')).toBeGreaterThanOrEqual(DELAYS_S[0]! * 1000);
});

it("caps the wait at the schedule's last delay", async () => {
  const gap = await gapMs('asks-too-much');
  expect(gap).toBeGreaterThanOrEqual(DELAYS_S[3]! * 1000);
  expect(gap).toBeLessThan(DELAYS_S[3]! * 1000 + 1500);
});

it('ignores Retry-After on other answers', async () => {
  // Honoured, its 3 s would have made the gap at least 3 s; the slack for a retry's lateness is the others'.
  const gap = await gapMs('ignored-on-500');
  expect(gap).toBeGreaterThanOrEqual(DELAYS_S[0]! * 1000);
  expect(gap).toBeLessThan(DELAYS_S[0]! * 1000 + 1500);
});

it('sends the same X-Event-Id (<lead id>:<seq>) on every attempt', async () => {
  await finalRecord('asks-3s', 'delivered');
  const got = receiver.at('/asks-3s');
  expect(got.map((r) => r.headers['x-event-id'])).toEqual([events['asks-3s']!.event_id, events['asks-3s']!.event_id]);
  expect(events['asks-3s']!.event_id).toMatch(/^le-\d+:\d+$/);
});

it('410 Gone: one more attempt, then dead, and the endpoint is flagged gone', async () => {
  const record = await finalRecord('gone', 'dead');
  expect(record.attempts.map((a) => a.http_status)).toEqual([410, 410]);
  const health = await until(
    async () => {
      const res = await manager.get<{ gone: boolean; consecutive_failures: number }>(
        `/api/affiliates/${events.gone!.partner_id}/endpoint-health`,
      );
      return res.body.consecutive_failures === 2 ? res.body : null;
    },
    10000,
    'the gone endpoint in the health report',
  );
  expect(health).toMatchObject({ gone: true, state: 'active', success_rate: 0, last_success_at: null });
});
