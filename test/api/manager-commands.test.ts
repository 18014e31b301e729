import { newDeliveryDoc } from '../../src/dispatcher/delivery-store';
import { loadConfig } from '../../src/shared/config';
import type { DeliveryDoc, ReplayJobDoc } from '../../src/shared/mongo/documents';
import { CallbackReceiver } from '../support/callback-receiver';
import { leadEvent } from '../support/lead-events';
import { ManagerClient } from '../support/manager-client';
import { testEnv } from '../support/test-config';
import { startTestApp, type TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

// The manager only asks: a retry, a replay or a test callback is a command to the dispatcher that
// owns the delivery or the endpoint, which alone writes deliveries and replay jobs and replies. With
// no dispatcher running the manager answers 503 command_pending after MANAGER_COMMAND_TIMEOUT_MS,
// writes nothing, and the command stands: the dispatcher that starts later carries it out.
const env = testEnv({ MANAGER_COMMAND_TIMEOUT_MS: '1000', CALLBACK_RETRY_DELAYS_S: '1,1,1,1' });
let manager: TestApp;
let dispatcher: TestApp | undefined;
let client: ManagerClient;
let receiver: CallbackReceiver;
let partner: { id: string; callback_secret: string };
let dead: DeliveryDoc;

beforeAll(async () => {
  manager = await startTestApp({}, loadConfig({ ...env, ROLE: 'ingress' }));
  client = new ManagerClient(manager.url);
  receiver = await new CallbackReceiver().start();
  partner = (
    await client.post<typeof partner>('/api/affiliates', { name: 'Commands', callback_url: receiver.url('/commands') })
  ).body;
  receiver.route('/commands', partner.callback_secret);
  // A delivery that used up its attempts, as the dispatcher leaves one.
  const event = leadEvent(partner.id);
  dead = {
    ...newDeliveryDoc(event, 5, new Date(), { dueAt: new Date() }),
    state: 'dead',
    attempts_made: 5,
    attempts_left: 0,
    next_attempt_at: null,
  };
  await manager.runtime.mongo.collections.deliveries.insertOne(dead);
});

afterAll(async () => {
  await dispatcher?.stop();
  await receiver?.stop();
  await manager?.destroy();
});

it('answers 503 command_pending while no dispatcher confirms, writes nothing itself, and the dispatcher carries the commands out when it comes', async () => {
  const retried = await client.post<{ error: string; message: string }>(`/api/deliveries/${dead._id}/retry`);
  expect(retried).toMatchObject({ status: 503, body: { error: 'command_pending' } });
  expect(retried.headers.get('retry-after')).toBe('5');
  const replay = await client.post<{ error: string; message: string }>(`/api/affiliates/${partner.id}/replay`, {
    from: new Date(Date.now() - 60_000).toISOString(),
    to: new Date(Date.now() + 60_000).toISOString(),
  });
  expect(replay).toMatchObject({ status: 503, body: { error: 'command_pending' } });
  const jobId = /rp-[0-9a-f]+/.exec(replay.body.message)![0];
  // The manager wrote neither the delivery nor a job.
  expect(await manager.runtime.mongo.collections.deliveries.findOne({ _id: dead._id })).toMatchObject({
    state: 'dead',
    manual_retries: [],
  });
  expect(await manager.runtime.mongo.collections.replayJobs.findOne({ _id: jobId })).toBeNull();

  dispatcher = await startTestApp({}, loadConfig({ ...env, ROLE: 'dispatcher' }));
  await until(
    async () => (await client.get<{ state: string }>(`/api/deliveries/${dead._id}`)).body.state === 'delivered',
    30_000,
    'the retry carried out',
  );
  const record = (await client.get<{ manual_retries: { by: string }[] }>(`/api/deliveries/${dead._id}`)).body;
  expect(record.manual_retries).toEqual([
    { at: expect.any(String), by: expect.stringMatching(/^break-glass:[0-9a-f]{6}$/) },
  ]);
  await until(
    async () => (await client.get<ReplayJobDoc>(`/api/replays/${jobId}`)).status === 200,
    30_000,
    'the replay job stored by its keeper',
  );
  expect(receiver.at('/commands').length).toBeGreaterThanOrEqual(1);
}, 60_000);

it('answers at once with the dispatcher up: the retry with the requeued record, the test callback with its attempt', async () => {
  expect((await client.post(`/api/deliveries/${dead._id}/retry`)).status).toBe(409);
  const test = await client.post<{ delivered: boolean; http_status: number }>(
    `/api/affiliates/${partner.id}/test-callback`,
  );
  expect(test).toMatchObject({ status: 200, body: { delivered: true, http_status: 200 } });
});
