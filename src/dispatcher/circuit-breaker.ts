import type { AttemptVerdict } from './retry-policy';

// One endpoint's circuit, as this dispatcher sees it: after a run of failed attempts it opens, and
// while it is open nothing is attempted (the endpoint's deliveries are held, as for a paused
// endpoint); when the wait before the next probe is over, one attempt goes as the probe, and its
// answer closes the circuit or opens it again for the next wait. Pure: the shell (endpoint-circuits.ts)
// keeps the states, the timers and the metric.
export type CircuitState =
  | { kind: 'closed'; failures: number } // failures: the run of failed attempts so far
  | { kind: 'open'; probes: number; probeAt: number } // probes: failed probes since it opened
  | { kind: 'probe-due'; probes: number } // the next attempt is the probe
  | { kind: 'probing'; probes: number; since: number }; // the probe is under way

export type CircuitInput =
  | { kind: 'attempt'; at: number } // an attempt is about to start: may it?
  | { kind: 'succeeded' } // an attempt was answered (delivered, or refused for good: the endpoint is up)
  | { kind: 'failed'; at: number } // an attempt failed in a way a retry may mend (refused, timeout, 5xx, 429)
  | { kind: 'due'; at: number }; // a timer: the wait before the next probe is over, or the probe's answer is overdue

export interface CircuitRules {
  failuresToOpen: number;
  // The wait before probe n+1 (n failed probes so far).
  waitBeforeProbeMs(probes: number): number;
  // A probe not answered within this long (its attempt withheld) is given up: the next attempt probes.
  probeTimeoutMs: number;
}

// `go`: the attempt may start; `changed`: the circuit opened (probe due at `probeAt`), a probe came
// due (the held deliveries may send it) or it closed (they go).
export interface CircuitStep {
  state: CircuitState;
  go?: boolean;
  changed?: { to: 'open'; probeAt: number } | { to: 'probe-due' } | { to: 'closed' };
}

export const CLOSED: CircuitState = { kind: 'closed', failures: 0 };

export function circuitStep(state: CircuitState, input: CircuitInput, rules: CircuitRules): CircuitStep {
  switch (input.kind) {
    case 'attempt':
      if (state.kind === 'closed') return { state, go: true };
      if (state.kind === 'probe-due') return { state: probing(state.probes, input.at), go: true };
      if (state.kind === 'probing' && input.at - state.since >= rules.probeTimeoutMs)
        return { state: probing(state.probes, input.at), go: true };
      return { state, go: false };
    case 'succeeded':
      return state.kind === 'closed' ? { state: CLOSED } : { state: CLOSED, changed: { to: 'closed' } };
    case 'failed':
      if (state.kind === 'closed') {
        const failures = state.failures + 1;
        return failures >= rules.failuresToOpen ? open(0, input.at, rules) : { state: { kind: 'closed', failures } };
      }
      // The probe failed; any other failure is of an attempt started before the circuit opened.
      return state.kind === 'probing' ? open(state.probes + 1, input.at, rules) : { state };
    case 'due':
      // A probe whose attempt was withheld (its work handed over) never answers: another may go.
      if (state.kind === 'open' || (state.kind === 'probing' && input.at - state.since >= rules.probeTimeoutMs))
        return { state: { kind: 'probe-due', probes: state.probes }, changed: { to: 'probe-due' } };
      return { state };
  }
}

// What an attempt about to start may do: go, go as the endpoint's probe, or not at all (held).
export type AttemptPermit = 'attempt' | 'probe' | false;

export const permitOf = (step: CircuitStep): AttemptPermit =>
  !step.go ? false : step.state.kind === 'probing' ? 'probe' : 'attempt';

// A probe that failed as a down endpoint fails (refused, timed out, 5xx, 429) says nothing of its
// delivery: it is held with the others, that attempt not counted, so no delivery goes dead however
// often it probes. A probe answered for good, or a payload that can never go, counts as any attempt.
export const probeHolds = (permit: AttemptPermit, verdict: AttemptVerdict): boolean =>
  permit === 'probe' && verdict === 'retriable';

// Whether the endpoint's deliveries are held now: nothing may start but the probe.
export const holds = (state: CircuitState): boolean => state.kind === 'open' || state.kind === 'probing';

const probing = (probes: number, since: number): CircuitState => ({ kind: 'probing', probes, since });

function open(probes: number, at: number, rules: CircuitRules): CircuitStep {
  const probeAt = at + rules.waitBeforeProbeMs(probes);
  return { state: { kind: 'open', probes, probeAt }, changed: { to: 'open', probeAt } };
}
