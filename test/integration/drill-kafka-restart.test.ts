import { loadConfig } from '../../src/shared/config';
import { CallbackReceiver } from '../support/callback-receiver';
import { expectNothingLost, expectOnlyRetryableFailures } from '../support/drill-checks';
import { DRILL_ENV, DRILL_PATH } from '../support/drill-partner';
import { PrivateService } from '../support/private-service';
import { restartUnderLoad } from '../support/restart-drill';
import { startTestApp, type TestApp } from '../support/test-app';
import { testEnv } from '../support/test-config';

// Fault drill: the Kafka broker stops in the middle of a steady load and comes back (same data,
// same ports). The broker is a PRIVATE one (scripts/services/kafka.sh on free ports, data in a
// temporary LEADS_RUN); the shared broker other test files use is never touched. The schema
// registry, MongoDB and Redis are the shared ones. While the broker is down the partner API answers
// 503 with Retry-After, promptly; once it is back the app recovers without help, and nothing is
// lost or doubled.
let kafka: PrivateService;
let app: TestApp;
let receiver: CallbackReceiver;

beforeAll(async () => {
  kafka = await PrivateService.create('kafka');
  [receiver] = await Promise.all([new CallbackReceiver().start(), kafka.start()]);
  app = await startTestApp({}, loadConfig(testEnv({ ...DRILL_ENV, ...kafka.appEnv })));
}, 180_000);

afterAll(async () => {
  await receiver?.stop();
  // The topics go with the private broker: only the database and Redis keys need dropping.
  await app?.destroy().catch(() => undefined);
  await kafka?.destroy();
}, 60_000);

it('answers 503 + Retry-After while the broker is down, recovers by itself, and loses nothing', async () => {
  const drill = await restartUnderLoad({ app, service: kafka, receiver, downMs: Number(process.env.DOWN_MS ?? 4000) });

  expect(drill.during.length).toBeGreaterThan(0);
  expect(drill.during.filter((a) => a.status === 503 && Number(a.retryAfter) > 0).length).toBeGreaterThan(0);
  // Every attempt got an answer, promptly: none hung until the client gave up.
  expect(drill.load.attempts().filter((a) => a.status === null)).toEqual([]);
  expect(drill.slowest).toBeLessThan(10_000);
  expectOnlyRetryableFailures(drill.load.runs);
  await expectNothingLost({ rt: app.runtime, partnerId: drill.partnerId, runs: drill.load.runs, receiver, path: DRILL_PATH });
}, 240_000);
