import { DRILL_PATH, drillEventOf, refusedFirst } from '../support/drill-partner';
import { dispatcherDrill } from '../support/dispatcher-drill';

// Graceful stops (SIGTERM, as in a rolling deploy) of the dispatcher under load, restarted at once:
// a stopping dispatcher lets its attempts under way finish and writes their records before it
// exits, so the next one replays its uncommitted events, finds them recorded and sends nothing
// twice, not even around a stop (unlike kill -9, drill-dispatcher-kill-batches.test.ts).
const STOPS = 3;
const drill = dispatcherDrill();

it('sends no callback twice and loses nothing across graceful stops under load', async () => {
  const { report } = await drill.interruptUnderLoad(STOPS, () => drill.stop());
  const receptions = new Map<string, number>();
  for (const c of drill.receiver.at(DRILL_PATH)) {
    const event = drillEventOf(c.body);
    receptions.set(event, (receptions.get(event) ?? 0) + 1);
  }
  const twice = [...receptions].filter(([event, n]) => n > (refusedFirst(event) ? 2 : 1));
  expect(twice).toEqual([]);
  expect(report.events).toBeGreaterThan(30);
}, 300_000);
