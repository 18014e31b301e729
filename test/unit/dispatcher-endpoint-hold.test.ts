import type { Collection } from 'mongodb';
import { EndpointCircuits } from '../../src/dispatcher/endpoint-circuits';
import { EndpointGate } from '../../src/dispatcher/endpoint-gate';
import { EndpointHold } from '../../src/dispatcher/endpoint-hold';
import { systemClock } from '../../src/shared/clock';
import { createLogger } from '../../src/shared/logger';
import type { EndpointHealthDoc } from '../../src/shared/mongo/documents';

// What a dispatcher does with an endpoint's new deliveries as its circuit turns: handled while
// closed, set aside in a backlog from the moment it opens until it closes again, its probe's due
// time included (a burst that arrived while the probe was due used to be recorded and queued whole
// behind a probe that failed).
const logger = createLogger('silent');
const rules = { failuresToOpen: 3, waitBeforeProbeMs: () => 30, probeTimeoutMs: 1000 };
let circuits: EndpointCircuits;
let hold: EndpointHold;

beforeEach(() => {
  circuits = new EndpointCircuits(rules, systemClock, logger);
  hold = new EndpointHold(
    new EndpointGate(null as unknown as Collection<EndpointHealthDoc>, 'unused', logger),
    circuits,
  );
});
afterEach(() => circuits.stop());

it("sets an endpoint's new deliveries aside from its circuit's opening to its closing, its probe's due time included", async () => {
  const released = new Promise<string>((resolve) => hold.onRelease(resolve));
  for (let i = 0; i < 2; i++) circuits.record('pa-1', 'retriable');
  expect(hold.setsAside('pa-1')).toBe(false); // two failures: still closed
  circuits.record('pa-1', 'retriable');
  expect([hold.setsAside('pa-1'), hold.pace('pa-1')]).toEqual([true, 'none']); // open

  expect(await released).toBe('pa-1'); // the probe came due (its timer, 30 ms on)
  expect([hold.setsAside('pa-1'), hold.pace('pa-1')]).toEqual([true, 'probe']);

  expect(hold.mayAttempt('pa-1')).toBe('probe');
  expect([hold.setsAside('pa-1'), hold.pace('pa-1')]).toEqual([true, 'none']); // probing
  circuits.record('pa-1', 'delivered');
  expect([hold.setsAside('pa-1'), hold.pace('pa-1')]).toEqual([false, 'any']); // closed
  expect(hold.setsAside('pa-2')).toBe(false); // another endpoint never failed
});
