import type { Clock } from '../shared/clock';
import type { Logger } from '../shared/logger';
import {
  CLOSED,
  circuitStep,
  holds,
  permitOf,
  type AttemptPermit,
  type CircuitInput,
  type CircuitRules,
  type CircuitState,
  type CircuitStep,
} from './circuit-breaker';
import type { AttemptVerdict } from './retry-policy';

export type CircuitCounts = Record<'open' | 'probe_due' | 'probing', number>;

// The circuits of the endpoints this dispatcher attempts, in memory only (circuit-breaker.ts
// decides): an endpoint is kept while its run of failures is not zero, so the map is bounded by the
// partners. A timer brings each open circuit's probe due; `released` listeners hear when a probe
// came due or a circuit closed, and send the held deliveries (the probe first).
export class EndpointCircuits {
  private readonly states = new Map<string, CircuitState>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly listeners: ((endpoint: string) => void)[] = [];
  private readonly turns: ((endpoint: string, to: 'open' | 'closed') => void)[] = [];

  constructor(
    private readonly rules: CircuitRules,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  // Whether the endpoint's deliveries are held: its circuit is open, or its probe is under way.
  holds(endpoint: string): boolean {
    return holds(this.stateOf(endpoint));
  }

  // Its circuit is open or probing (held), or its probe is due (the next attempt goes alone).
  isOpen(endpoint: string): boolean {
    return this.stateOf(endpoint).kind !== 'closed';
  }

  // Asked as an attempt is about to start: false while the circuit is open; the first asked once
  // its probe is due is the probe.
  mayAttempt(endpoint: string): AttemptPermit {
    return permitOf(this.apply(endpoint, { kind: 'attempt', at: this.now() }));
  }

  // An attempt's verdict: the payload's own faults (unsendable) say nothing of the endpoint.
  record(endpoint: string, verdict: AttemptVerdict): void {
    if (verdict === 'unsendable') return;
    this.apply(endpoint, verdict === 'retriable' ? { kind: 'failed', at: this.now() } : { kind: 'succeeded' });
  }

  onRelease(listener: (endpoint: string) => void): void {
    this.listeners.push(listener);
  }

  // Hears each circuit that opens or closes (the partner is told).
  onTurn(listener: (endpoint: string, to: 'open' | 'closed') => void): void {
    this.turns.push(listener);
  }

  counts(): CircuitCounts {
    const counts: CircuitCounts = { open: 0, probe_due: 0, probing: 0 };
    for (const s of this.states.values())
      if (s.kind !== 'closed') counts[s.kind === 'probe-due' ? 'probe_due' : s.kind]++;
    return counts;
  }

  stop(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private apply(endpoint: string, input: CircuitInput): CircuitStep {
    const step = circuitStep(this.stateOf(endpoint), input, this.rules);
    if (step.state.kind === 'closed' && step.state.failures === 0) this.states.delete(endpoint);
    else this.states.set(endpoint, step.state);
    // The probe just started: if it never answers, another goes after the probe timeout.
    if (step.go && step.state.kind === 'probing') this.wake(endpoint, this.rules.probeTimeoutMs);
    const changed = step.changed;
    if (!changed) return step;
    if (changed.to !== 'probe-due') for (const turn of this.turns) turn(endpoint, changed.to);
    if (changed.to === 'open') {
      const wait = Math.max(0, changed.probeAt - this.now());
      this.wake(endpoint, wait);
      this.logger.warn(
        { endpoint, probe_in_ms: wait },
        'endpoint circuit open: its deliveries are held until a probe succeeds',
      );
      return step;
    }
    if (changed.to === 'closed') {
      this.unwake(endpoint);
      this.logger.info({ endpoint }, 'endpoint circuit closed: its held deliveries go');
    }
    for (const listener of this.listeners) listener(endpoint);
    return step;
  }

  // One timer per endpoint at most: the next `due`.
  private wake(endpoint: string, afterMs: number): void {
    this.unwake(endpoint);
    const timer = setTimeout(() => {
      this.timers.delete(endpoint);
      this.apply(endpoint, { kind: 'due', at: this.now() });
    }, afterMs).unref();
    this.timers.set(endpoint, timer);
  }

  private unwake(endpoint: string): void {
    clearTimeout(this.timers.get(endpoint));
    this.timers.delete(endpoint);
  }

  private stateOf(endpoint: string): CircuitState {
    return this.states.get(endpoint) ?? CLOSED;
  }

  private now(): number {
    return this.clock.now().getTime();
  }
}
