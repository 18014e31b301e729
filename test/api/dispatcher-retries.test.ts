import type { DispatcherCommands } from '../../src/dispatcher/commands';
import type { ReplyWaiter } from '../../src/shared/kafka/reply-waiter';
import { deliveryId } from '../../src/shared/ids';
import type { DeliveryDoc } from '../../src/shared/mongo/documents';
import type { CallbackReply, DeliveryTask, LeadEvent } from '../../src/shared/schemas';
import { CallbackReceiver, failFirst, hangFirst, status, type ReceivedCallback } from '../support/callback-receiver';
import { deliveryRecord, publishLeadEvents } from '../support/lead-events';
import { scenarioPartners } from '../support/scenario-partners';
import { managerSide } from '../support/manager-side';
import { startTestApp, type TestApp } from '../support/test-app';
import { TopicProbe, until } from '../support/topic-probe';

// The retry schedule with short, distinct delays (1, 2, 3, 4 s), run by the real mechanism: retry
// tier topics, paused partitions, the dead topic and the delivery records.
const DELAYS_MS = [1000, 2000, 3000, 4000];
const TIMEOUT_MS = 1000;
// How late an attempt may run after its due time before the test calls it a failure.
const LATE_TOLERANCE_MS = 750;

let app: TestApp;
let receiver: CallbackReceiver;
let dead: TopicProbe<DeliveryTask>;
let commands: DispatcherCommands;
let replies: ReplyWaiter<CallbackReply>;
const events: Record<string, LeadEvent> = {};

beforeAll(async () => {
  app = await startTestApp({
    ROLE: 'dispatcher',
    CALLBACK_RETRY_DELAYS_S: '1,2,3,4',
    CALLBACK_TIMEOUT_MS: String(TIMEOUT_MS),
  });
  receiver = await new CallbackReceiver().start();
  dead = await new TopicProbe<DeliveryTask>(app.runtime, 'callbacksDead').start();
  const rt = app.runtime;
  ({ commands, replies } = await managerSide(rt, 'retries-test-manager'));
  const scenarios = {
    'fails-twice': failFirst(2),
    'always-500': status(500, 'boom'),
    'answers-404': status(404, 'no such hook'),
    hangs: hangFirst(2),
  };
  Object.assign(events, await scenarioPartners(app.runtime, receiver, scenarios));
  // All scenarios run at once; each test waits for its own.
  await publishLeadEvents(app.runtime, Object.values(events));
});

afterAll(async () => {
  await replies?.stop();
  await dead?.stop();
  await receiver?.stop();
  await app?.destroy();
});

const finalRecord = (name: string, state: DeliveryDoc['state'], timeoutMs = 30000) =>
  until(
    async () => {
      const r = await deliveryRecord(app.runtime, events[name]!);
      return r?.state === state ? r : null;
    },
    timeoutMs,
    `${name} to be ${state}`,
  );

// Start-to-start gaps between attempts: never shorter than the delay, and not much longer.
function expectGaps(got: ReceivedCallback[], delaysMs: number[]) {
  const gaps = got.slice(1).map((r, i) => r.at - got[i]!.at);
  gaps.forEach((gap, i) => {
    expect(gap).toBeGreaterThanOrEqual(delaysMs[i]!);
    expect(gap).toBeLessThan(delaysMs[i]! + LATE_TOLERANCE_MS + 100);
  });
}

it('retries a receiver that fails twice, then delivers: 3 attempts, delays in order', async () => {
  const record = await finalRecord('fails-twice', 'delivered');
  const got = receiver.at('/fails-twice');
  expect(got).toHaveLength(3);
  expect(got.every((r) => r.signatureValid)).toBe(true);
  expect(new Set(got.map((r) => r.raw)).size).toBe(1); // the same bytes every time
  expectGaps(got, DELAYS_MS.slice(0, 2));
  expect(record).toMatchObject({ attempts_made: 3, attempts_left: 0, last_http_status: 200, next_attempt_at: null });
  expect(record.attempts.map((a) => a.http_status)).toEqual([500, 500, 200]);
});

it('gives up on a receiver that always fails with 500: 5 attempts, dead, on the dead topic', async () => {
  const record = await finalRecord('always-500', 'dead');
  const got = receiver.at('/always-500');
  expect(got).toHaveLength(5);
  expectGaps(got, DELAYS_MS);
  expect(record).toMatchObject({
    attempts_made: 5,
    attempts_left: 0,
    next_attempt_at: null,
    last_http_status: 500,
    last_response_body: 'boom',
    last_error: null,
  });
  expect(record.attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5]);
  const id = deliveryId(events['always-500']!.event_id, events['always-500']!.partner_id);
  await dead.waitFor((tasks) => tasks.some((t) => t.delivery_id === id));
  const message = dead.seen.find((s) => s.value.delivery_id === id)!;
  expect(message.value).toEqual({ delivery_id: id, event: events['always-500'], last_error: 'http_500' });
  expect(message.headers['x-attempt']?.toString()).toBe('5');
  expect(message.key).toBe(id);
});

it('stops after one more retry when the receiver answers 404: exactly 2 attempts', async () => {
  const record = await finalRecord('answers-404', 'dead');
  expect(record.attempts.map((a) => a.http_status)).toEqual([404, 404]);
  expect(record.last_response_body).toBe('no such hook');
  await new Promise((r) => setTimeout(r, DELAYS_MS[1]! + 500));
  expect(receiver.at('/answers-404')).toHaveLength(2);
});

it('counts a receiver that hangs as a timed-out failure, and retries it', async () => {
  const record = await finalRecord('hangs', 'delivered');
  expect(record.attempts.map((a) => a.error)).toEqual(['timeout', 'timeout', null]);
  for (const a of record.attempts.slice(0, 2)) {
    expect(a.http_status).toBeNull();
    expect(a.duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 10);
    expect(a.duration_ms).toBeLessThan(TIMEOUT_MS + 500);
  }
  expect(receiver.at('/hangs')).toHaveLength(3);
});

it('delivers a dead delivery again when a manager retries it: a fresh round, recorded', async () => {
  await finalRecord('always-500', 'dead');
  receiver.respond('/always-500', status(200, 'ok'));
  const id = deliveryId(events['always-500']!.event_id, events['always-500']!.partner_id);
  expect((await commands.retry(id, 'manager:alice')).outcome).toBe('requeued');
  const record = await finalRecord('always-500', 'delivered', 10000);
  expect(receiver.at('/always-500')).toHaveLength(6);
  expect(record).toMatchObject({
    attempts_made: 1,
    attempts_left: 0,
    last_http_status: 200,
    manual_retries: [{ at: expect.any(Date), by: 'manager:alice' }],
  });
  expect(record.attempts).toHaveLength(6);
  expect((await commands.retry(id, 'manager:alice')).outcome).toBe('not_dead');
  expect((await commands.retry('dl-0000', 'manager:alice')).outcome).toBe('not_found');
});

it('retries every dead delivery of a partner at once', async () => {
  await finalRecord('answers-404', 'dead');
  receiver.respond('/answers-404', status(204));
  expect(await commands.retryDead(events['answers-404']!.partner_id, 'manager:bob')).toEqual({
    requeued: 1,
    pending: 0,
  });
  await finalRecord('answers-404', 'delivered', 10000);
  expect(receiver.at('/answers-404')).toHaveLength(3);
});

it('measures how late retries ran, and they ran on time', async () => {
  const lateness = (await app.runtime.metrics.getSingleMetric('lead_intake_callback_retry_lateness_seconds')!.get())
    .values as { metricName?: string; labels: Record<string, unknown>; value: number }[];
  const series = (suffix: string) =>
    lateness.find((v) => v.metricName?.endsWith(suffix) && v.labels.path === 'topic')?.value ?? 0;
  const [count, sum] = [series('_count'), series('_sum')];
  expect(count).toBeGreaterThanOrEqual(8);
  expect(sum / count).toBeLessThan(LATE_TOLERANCE_MS / 1000);
  const retries = await app.runtime.metrics.getSingleMetric('lead_intake_callback_retries_total')!.get();
  expect(retries.values.find((v) => v.labels.tier === '4')?.value).toBeGreaterThanOrEqual(1);
  const deadLetters = await app.runtime.metrics.getSingleMetric('lead_intake_callback_dead_letters_total')!.get();
  expect(deadLetters.values[0]?.value).toBe(2);
});
