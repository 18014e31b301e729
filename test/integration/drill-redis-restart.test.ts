import { loadConfig } from '../../src/shared/config';
import { CallbackReceiver } from '../support/callback-receiver';
import { expectNothingLost, expectOnlyRetryableFailures } from '../support/drill-checks';
import { DRILL_ENV, DRILL_PATH } from '../support/drill-partner';
import { PrivateService } from '../support/private-service';
import { restartUnderLoad } from '../support/restart-drill';
import { startTestApp, type TestApp } from '../support/test-app';
import { testEnv } from '../support/test-config';

// Fault drill: Redis (idempotency records, rate-limit windows, document locks, partner change
// notices) stops in the middle of a steady load and comes back with its append-only data. It is a
// PRIVATE instance (scripts/services/redis.sh on a free port, data in a temporary LEADS_RUN); the
// shared one other test files use is never touched. Kafka, MongoDB and
// the registry are the shared ones. While it is down the partner API answers 503 with Retry-After;
// once it is back the app recovers without help, and nothing is lost or doubled.
let redis: PrivateService;
let app: TestApp;
let receiver: CallbackReceiver;

beforeAll(async () => {
  redis = await PrivateService.create('redis');
  [receiver] = await Promise.all([new CallbackReceiver().start(), redis.start()]);
  app = await startTestApp({}, loadConfig(testEnv({ ...DRILL_ENV, ...redis.appEnv })));
}, 120_000);

afterAll(async () => {
  await receiver?.stop();
  await app?.destroy().catch(() => undefined);
  await redis?.destroy();
}, 60_000);

it('answers 503 + Retry-After while Redis is down, recovers by itself, and loses nothing', async () => {
  const drill = await restartUnderLoad({ app, service: redis, receiver, downMs: Number(process.env.DOWN_MS ?? 6000) });

  expect(drill.during.filter((a) => a.status === 503 && Number(a.retryAfter) > 0).length).toBeGreaterThan(0);
  expect(drill.load.attempts().filter((a) => a.status === null)).toEqual([]);
  expect(drill.slowest).toBeLessThan(10_000);
  expectOnlyRetryableFailures(drill.load.runs);
  await expectNothingLost({ rt: app.runtime, partnerId: drill.partnerId, runs: drill.load.runs, receiver, path: DRILL_PATH });
}, 240_000);
