import type { AttemptPermit } from './circuit-breaker';
import type { EndpointCircuits } from './endpoint-circuits';
import type { EndpointGate } from './endpoint-gate';

// Whether an endpoint's deliveries are held instead of attempted: it is paused (after a day of
// failures, every dispatcher alike: endpoint-gate.ts) or its circuit is open on this dispatcher
// (endpoint-circuits.ts). Held deliveries are recorded and set aside with their leads (parked), and
// go again when the endpoint is released: resumed, its circuit's probe due, or its circuit closed.
export class EndpointHold {
  constructor(
    private readonly gate: EndpointGate,
    private readonly circuits: EndpointCircuits,
  ) {}

  holds(endpoint: string): boolean {
    return this.gate.isPaused(endpoint) || this.circuits.holds(endpoint);
  }

  // How many deliveries set aside in a backlog may go now (endpoint-backlogs.ts), room in its queue
  // aside: none while held, one while its circuit's probe is due, any number once it is closed.
  pace(endpoint: string): 'none' | 'probe' | 'any' {
    if (this.holds(endpoint)) return 'none';
    return this.circuits.isOpen(endpoint) ? 'probe' : 'any';
  }

  // Its circuit is not closed (not a pause): new deliveries are set aside in a backlog. That includes
  // while its probe is due: the probe is one delivery already held or read back, and a new one
  // handled then would be recorded and queued behind a probe that may well fail (under load the
  // probe can be due for hundreds of milliseconds, and a burst arriving then was recorded whole).
  setsAside(endpoint: string): boolean {
    return this.circuits.isOpen(endpoint);
  }

  // Asked once, as an attempt is about to start (it may take the circuit's probe).
  mayAttempt(endpoint: string): AttemptPermit {
    return !this.gate.isPaused(endpoint) && this.circuits.mayAttempt(endpoint);
  }

  onRelease(listener: (endpoint: string) => void): void {
    this.gate.onResume(listener);
    this.circuits.onRelease(listener);
  }
}
