import { expectNothingLost, expectOnlyRetryableFailures } from '../support/drill-checks';
import { DRILL_PATH, drillPartner } from '../support/drill-partner';
import { dispatcherDrill } from '../support/dispatcher-drill';
import { SteadyLoad } from '../support/steady-load';

// Fault drill: kill -9 of the dispatcher in the middle of a steady load (callbacks in flight, some
// waiting on the retry topics), then a restart. Ingress and processor run in this process, the
// dispatcher as its own OS process through src/main.ts. Afterwards: no accepted lead lost or
// doubled, no lead event lost, every delivery delivered, every callback received and signed.
const drill = dispatcherDrill();

it('loses, doubles and strands nothing across a kill -9 of the dispatcher and its restart', async () => {
  const { app, receiver } = drill;
  const partner = await drillPartner(app.runtime, receiver);
  const load = new SteadyLoad({ targets: () => [app.url], creds: partner.creds, perSecond: 3 }).start();

  const t0 = Date.now();
  const mark = (what: string) => process.env.DRILL_REPORT && process.stderr.write(`${what} at ${Date.now() - t0} ms\n`);
  await receiver.waitFor(DRILL_PATH, 10, 30_000);
  mark('10 callbacks');
  await drill.kill();
  const killedAt = Date.now();
  await new Promise((r) => setTimeout(r, 2000));
  await drill.restart();
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
