import { loadConfig } from '../../src/shared/config';
import { CallbackReceiver } from '../support/callback-receiver';
import { expectNothingLost, expectOnlyRetryableFailures } from '../support/drill-checks';
import { DRILL_ENV, DRILL_PATH } from '../support/drill-partner';
import { PrivateService } from '../support/private-service';
import { restartUnderLoad } from '../support/restart-drill';
import { startTestApp, type TestApp } from '../support/test-app';
import { testEnv } from '../support/test-config';

// Fault drill: the MongoDB-wire server (FerretDB) stops in the middle of a steady load and comes
// back with its data. It is a PRIVATE instance (scripts/services/ferretdb.sh on a free port, data in
// a temporary LEADS_RUN); the shared one other test files use is never touched. Kafka, Redis and
// the registry are the shared ones. While it is down the partner API answers 503 with Retry-After;
// once it is back the app recovers without help, and nothing is lost or doubled.
let mongo: PrivateService;
let app: TestApp;
let receiver: CallbackReceiver;

beforeAll(async () => {
  mongo = await PrivateService.create('ferretdb');
  [receiver] = await Promise.all([new CallbackReceiver().start(), mongo.start()]);
  app = await startTestApp({}, loadConfig(testEnv({ ...DRILL_ENV, ...mongo.appEnv })));
}, 120_000);

afterAll(async () => {
  await receiver?.stop();
  await app?.destroy().catch(() => undefined);
  await mongo?.destroy();
}, 60_000);

it('answers 503 + Retry-After while MongoDB is down, recovers by itself, and loses nothing', async () => {
  // Longer than the driver's 5 s server selection, which rides out a shorter outage without an error.
  const drill = await restartUnderLoad({ app, service: mongo, receiver, downMs: Number(process.env.DOWN_MS ?? 12000) });

  expect(drill.during.filter((a) => a.status === 503 && Number(a.retryAfter) > 0).length).toBeGreaterThan(0);
  expect(drill.load.attempts().filter((a) => a.status === null)).toEqual([]);
  expect(drill.slowest).toBeLessThan(10_000);
  expectOnlyRetryableFailures(drill.load.runs);
  await expectNothingLost({ rt: app.runtime, partnerId: drill.partnerId, runs: drill.load.runs, receiver, path: DRILL_PATH });
}, 240_000);
