const NOW = Promise.resolve();

// Intake requests set out together when they come close together. At a few hundred leads a second a
// request mostly arrives alone, and each of its round trips (admission, produce, reply, the answer's
// record) wakes the ingress on its own; a wake-up after idling costs several times the work it
// carries (docs/benchmarks.md, "What a lead costs depends on how often a role wakes"). A request that
// comes less than `windowMs` after the one before waits for the window it opens (or the one already
// open) to end, and the cohort's admissions leave in one Redis write, their commands in one produce
// request, their replies come in one fetch. A request after a quiet spell goes at once, so a partner
// sending now and then waits for nothing; no timer runs while no request waits; 0 (the default)
// turns it off.
export class IntakeCohort {
  private window: Promise<void> | null = null;
  private lastArrivalMs = -Infinity;

  constructor(private readonly windowMs: number) {}

  join(nowMs = Date.now()): Promise<void> {
    if (this.windowMs <= 0) return NOW;
    const close = nowMs - this.lastArrivalMs < this.windowMs;
    this.lastArrivalMs = nowMs;
    if (!close && !this.window) return NOW;
    this.window ??= new Promise<void>((resolve) =>
      setTimeout(() => {
        this.window = null;
        resolve();
      }, this.windowMs),
    );
    return this.window;
  }
}
