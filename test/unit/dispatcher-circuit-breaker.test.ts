import {
  CLOSED,
  circuitStep,
  holds,
  permitOf,
  probeHolds,
  type CircuitInput,
  type CircuitState,
} from '../../src/dispatcher/circuit-breaker';

// An endpoint's circuit, state by state and input by input: whether an attempt may start, what the
// circuit becomes, and what its shell is told (opened with the probe's time, probe due, closed).
const rules = {
  failuresToOpen: 3,
  waitBeforeProbeMs: (probes: number) => [1000, 2000, 3000][Math.min(probes, 2)]!,
  probeTimeoutMs: 500,
};
const closed = (failures: number): CircuitState => ({ kind: 'closed', failures });
const open = (probes: number, probeAt: number): CircuitState => ({ kind: 'open', probes, probeAt });
const due = (probes: number): CircuitState => ({ kind: 'probe-due', probes });
const probing = (probes: number, since: number): CircuitState => ({ kind: 'probing', probes, since });
const attempt = (at: number): CircuitInput => ({ kind: 'attempt', at });
const failed = (at: number): CircuitInput => ({ kind: 'failed', at });
const ok: CircuitInput = { kind: 'succeeded' };

describe('an endpoint circuit', () => {
  it.each<[string, CircuitState, CircuitInput, ReturnType<typeof circuitStep>]>([
    ['closed: attempts go', CLOSED, attempt(0), { state: CLOSED, go: true }],
    ['closed: a failure counts', closed(1), failed(10), { state: closed(2) }],
    [
      'closed: the run of failures opens it',
      closed(2),
      failed(10),
      { state: open(0, 1010), changed: { to: 'open', probeAt: 1010 } },
    ],
    ['closed: a success ends the run', closed(2), ok, { state: CLOSED }],
    ['open: nothing is attempted', open(0, 1010), attempt(500), { state: open(0, 1010), go: false }],
    ['open: a late failure changes nothing', open(0, 1010), failed(20), { state: open(0, 1010) }],
    ['open: a late success closes it', open(0, 1010), ok, { state: CLOSED, changed: { to: 'closed' } }],
    [
      'open: its wait over, the probe is due',
      open(1, 2000),
      { kind: 'due', at: 2000 },
      { state: due(1), changed: { to: 'probe-due' } },
    ],
    [
      'probing: a probe unanswered past its timeout, another is due',
      probing(1, 2100),
      { kind: 'due', at: 2600 },
      { state: due(1), changed: { to: 'probe-due' } },
    ],
    [
      'probing: answered meanwhile, a stale timer changes nothing',
      probing(1, 2100),
      { kind: 'due', at: 2300 },
      { state: probing(1, 2100) },
    ],
    ['probe due: the next attempt is the probe', due(1), attempt(2100), { state: probing(1, 2100), go: true }],
    ['probing: no other attempt', probing(1, 2100), attempt(2200), { state: probing(1, 2100), go: false }],
    [
      'probing: a probe never answered is given up',
      probing(1, 2100),
      attempt(2600),
      { state: probing(1, 2600), go: true },
    ],
    [
      'probing: the probe failed, longer wait',
      probing(1, 2100),
      failed(2300),
      { state: open(2, 5300), changed: { to: 'open', probeAt: 5300 } },
    ],
    [
      'probing: waits stop growing at the last',
      probing(5, 0),
      failed(100),
      { state: open(6, 3100), changed: { to: 'open', probeAt: 3100 } },
    ],
    ['probing: the probe answered, closed', probing(1, 2100), ok, { state: CLOSED, changed: { to: 'closed' } }],
    ['probe due: a success closes it', due(0), ok, { state: CLOSED, changed: { to: 'closed' } }],
    ['probe due: a late failure changes nothing', due(0), failed(1), { state: due(0) }],
    ['closed: a due timer changes nothing', closed(1), { kind: 'due', at: 0 }, { state: closed(1) }],
  ])('%s', (_name, state, input, expected) => {
    expect(circuitStep(state, input, rules)).toEqual(expected);
  });

  it('holds the endpoint while open or probing, not when closed or its probe is due', () => {
    expect([CLOSED, closed(2), open(0, 1), due(0), probing(0, 0)].map(holds)).toEqual([
      false,
      false,
      true,
      false,
      true,
    ]);
  });

  it('tells an attempt about to start whether it goes, and whether it goes as the probe', () => {
    const permit = (state: CircuitState, at: number) => permitOf(circuitStep(state, attempt(at), rules));
    expect([permit(closed(2), 0), permit(due(1), 0), permit(probing(1, 0), 600)]).toEqual([
      'attempt',
      'probe',
      'probe',
    ]);
    expect([permit(open(0, 1000), 0), permit(probing(1, 0), 100)]).toEqual([false, false]);
  });

  it("holds a probe's delivery that failed as the endpoint does when down, its attempt not counted", () => {
    expect(probeHolds('probe', 'retriable')).toBe(true);
    // Answered for good (the endpoint is up), or a payload that can never go: an attempt like any.
    expect(['delivered', 'permanent', 'unsendable'].map((v) => probeHolds('probe', v as 'permanent'))).toEqual([
      false,
      false,
      false,
    ]);
    expect(probeHolds('attempt', 'retriable')).toBe(false);
  });
});
