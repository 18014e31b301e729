import { loadConfig } from '../../src/shared/config';
import { CallbackReceiver } from '../support/callback-receiver';
import { startChildRole, type ChildRole } from '../support/child-role';
import { expectNothingLost, expectOnlyRetryableFailures } from '../support/drill-checks';
import { DRILL_ENV, DRILL_PATH, drillPartner, KILLED_ROLE_ENV } from '../support/drill-partner';
import { SteadyLoad } from '../support/steady-load';
import { startTestApp, type TestApp } from '../support/test-app';
import { testEnv } from '../support/test-config';

// Fault drill: kill -9 of the dispatcher in the middle of a steady load (callbacks in flight, some
// waiting on the retry topics), then a restart. Ingress and processor run in this process, the
// dispatcher as its own OS process through src/main.ts. Afterwards: no accepted lead lost or
// doubled, no lead event lost, every delivery delivered, every callback received and signed.
const env = testEnv(DRILL_ENV);
const childEnv = { ...env, ...KILLED_ROLE_ENV };
let app: TestApp;
let dispatcher: ChildRole | undefined;
let receiver: CallbackReceiver;

beforeAll(async () => {
  receiver = await new CallbackReceiver().start();
  [app, dispatcher] = await Promise.all([
    startTestApp({}, loadConfig({ ...env, ROLE: 'ingress,processor' })),
    startChildRole('dispatcher', childEnv),
  ]);
}, 90_000);

afterAll(async () => {
  await dispatcher?.kill();
  await receiver?.stop();
  await app?.destroy();
});

it('loses, doubles and strands nothing across a kill -9 of the dispatcher and its restart', async () => {
  const partner = await drillPartner(app.runtime, receiver);
  const load = new SteadyLoad({ targets: () => [app.url], creds: partner.creds, perSecond: 3 }).start();

  const t0 = Date.now();
  const mark = (what: string) => process.env.DRILL_REPORT && process.stderr.write(`${what} at ${Date.now() - t0} ms\n`);
  await receiver.waitFor(DRILL_PATH, 10, 30_000);
  mark('10 callbacks');
  await dispatcher!.kill('SIGKILL');
  const killedAt = Date.now();
  dispatcher = undefined;
  await new Promise((r) => setTimeout(r, 2000));
  dispatcher = await startChildRole('dispatcher', childEnv);
  mark('restarted');
  const callbacksAfterRestart = receiver.at(DRILL_PATH).length;
  await new Promise((r) => setTimeout(r, 2000));
  await load.stop();
  mark('load stopped');

  expect(load.runs.filter((r) => r.attempts[0]!.startedAt > killedAt).length).toBeGreaterThan(0); // leads while it was down
  expectOnlyRetryableFailures(load.runs);
  await expectNothingLost({ rt: app.runtime, partnerId: partner.id, runs: load.runs, receiver, path: DRILL_PATH });
  mark('verified');
  expect(receiver.at(DRILL_PATH).length).toBeGreaterThan(callbacksAfterRestart);
}, 180_000);
