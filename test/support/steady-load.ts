import { randomBytes, randomUUID } from 'node:crypto';
import { PartnerClient, type PartnerCredentials } from './partner-client';

export interface Attempt {
  target: string;
  startedAt: number;
  ms: number;
  status: number | null; // null: no HTTP answer (connection refused or reset, timeout)
  error?: string;
  retryAfter?: string | null;
  body?: Record<string, unknown>;
}

// One logical lead, sent until it gets a final answer: the same bytes and Idempotency-Key on every
// attempt, each attempt to the next instance in line, as a partner behind a load balancer retries.
export interface LeadRun {
  key: string;
  externalId: string;
  raw: string;
  attempts: Attempt[];
  final: Attempt | null;
}

export interface SteadyLoadOptions {
  targets: () => readonly string[]; // base URLs of the live ingress instances, read at every attempt
  creds: PartnerCredentials;
  perSecond: number;
  maxInFlight?: number; // leads under way at once (default 4): a slow pipeline slows the stream instead of drowning
  attemptTimeoutMs?: number; // a partner's HTTP client timeout
  giveUpAfterMs?: number; // per lead, from its first attempt
}

// An answer worth retrying with the same key: every 5xx, 408, 429 and 409 idempotency_key_in_use.
export function retryable(a: Attempt): boolean {
  if (a.status === null) return true;
  if (a.status >= 500 || a.status === 408 || a.status === 429) return true;
  return a.status === 409 && a.body?.error === 'idempotency_key_in_use';
}

// A steady stream of distinct, valid leads over real sockets, signed exactly as a partner signs, with
// a partner's retry loop (Retry-After honoured, capped at 2 s). At most maxInFlight leads are under
// way at once, so on a slow machine the stream slows down rather than piling up retries. stop()
// ends the stream and waits until every lead has its final answer or gave up.
export class SteadyLoad {
  readonly runs: LeadRun[] = [];
  private readonly pending = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private rr = 0;
  private seq: number;
  private readonly tag = randomBytes(3).toString('hex');

  constructor(private readonly opts: SteadyLoadOptions) {
    this.seq = Math.floor(Math.random() * 800_000);
  }

  start(): this {
    this.timer = setInterval(
      () => {
        if (this.pending.size < (this.opts.maxInFlight ?? 4)) this.launch();
      },
      Math.max(1, Math.round(1000 / this.opts.perSecond)),
    );
    return this;
  }

  // Sends n leads at once, their first attempts to `target` (default: the usual rotation).
  burst(n: number, target?: string): LeadRun[] {
    return Array.from({ length: n }, () => this.launch(target));
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  attempts(): Attempt[] {
    return this.runs.flatMap((r) => r.attempts);
  }

  private launch(target?: string): LeadRun {
    const n = this.seq++;
    const externalId = `drill-${this.tag}-${n}`;
    const run: LeadRun = {
      key: randomUUID(),
      externalId,
      raw: JSON.stringify({
        external_id: externalId,
        phone: `+447911${String(n % 1_000_000).padStart(6, '0')}`,
        email: `lead-${this.tag}-${n}@example.com`,
        country: 'GB',
        source: 'drill',
      }),
      attempts: [],
      final: null,
    };
    this.runs.push(run);
    const p = this.drive(run, target).finally(() => this.pending.delete(p));
    this.pending.add(p);
    return run;
  }

  private async drive(run: LeadRun, firstTarget?: string): Promise<void> {
    const giveUpAt = Date.now() + (this.opts.giveUpAfterMs ?? 120_000);
    let target = firstTarget;
    while (Date.now() < giveUpAt) {
      const targets = this.opts.targets();
      target ??= targets[this.rr++ % targets.length]!;
      const attempt = await this.send(target, run);
      run.attempts.push(attempt);
      if (!retryable(attempt)) {
        run.final = attempt;
        return;
      }
      target = undefined;
      const waitS = Number(attempt.retryAfter);
      await new Promise((r) => setTimeout(r, Number.isFinite(waitS) && waitS > 0 ? Math.min(waitS * 1000, 2000) : 250));
    }
  }

  private async send(target: string, run: LeadRun): Promise<Attempt> {
    const startedAt = Date.now();
    try {
      const res = await new PartnerClient(target, this.opts.creds).submitLead(run.raw, {
        idempotencyKey: run.key,
        signal: AbortSignal.timeout(this.opts.attemptTimeoutMs ?? 15_000),
      });
      return {
        target,
        startedAt,
        ms: Date.now() - startedAt,
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        body: res.body,
      };
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      const error = `${e.name}: ${e.cause?.code ?? ''} ${e.cause?.message ?? e.message}`;
      return { target, startedAt, ms: Date.now() - startedAt, status: null, error };
    }
  }
}
