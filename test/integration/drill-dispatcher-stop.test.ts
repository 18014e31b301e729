import { createHash } from 'node:crypto';
import { expectNothingLost, expectOnlyRetryableFailures } from '../support/drill-checks';
import { DRILL_PATH, drillPartner } from '../support/drill-partner';
import { dispatcherDrill } from '../support/dispatcher-drill';
import { SteadyLoad } from '../support/steady-load';

// Graceful stops (SIGTERM, as in a rolling deploy) of the dispatcher under load, restarted at once:
// a stopping dispatcher lets its attempts under way finish and writes their records before it
// exits, so the next one replays its uncommitted events, finds them recorded and sends nothing
// twice, not even around a stop (unlike kill -9, drill-dispatcher-kill-batches.test.ts).
const STOPS = 3;
const drill = dispatcherDrill();

// The drill receiver refuses the first attempt of about a third of the events (drill-partner.ts).
const refusedFirst = (event: string) => createHash('sha256').update(event).digest()[0]! % 3 === 0;

it('sends no callback twice and loses nothing across graceful stops under load', async () => {
  const { app, receiver } = drill;
  const partner = await drillPartner(app.runtime, receiver);
  const load = new SteadyLoad({ targets: () => [app.url], creds: partner.creds, perSecond: 8 }).start();
  let expected = 10;
  for (let s = 0; s < STOPS; s++) {
    await receiver.waitFor(DRILL_PATH, expected, 60_000);
    await drill.stop();
    await drill.restart();
    expected = receiver.at(DRILL_PATH).length + 10;
  }
  await load.stop();

  expectOnlyRetryableFailures(load.runs);
  const report = await expectNothingLost({ rt: app.runtime, partnerId: partner.id, runs: load.runs, receiver, path: DRILL_PATH, timeoutMs: 90_000 });
  const receptions = new Map<string, number>();
  for (const c of receiver.at(DRILL_PATH)) {
    const event = `${String(c.body.internal_id)}|${String(c.body.our_status)}`;
    receptions.set(event, (receptions.get(event) ?? 0) + 1);
  }
  const twice = [...receptions].filter(([event, n]) => n > (refusedFirst(event) ? 2 : 1));
  expect(twice).toEqual([]);
  expect(report.events).toBeGreaterThan(30);
}, 300_000);
