import {
  classifyAttempt,
  decideAfterAttempt,
  failureText,
  retryAfterMs,
  retrySchedule,
  type AttemptFailure,
  type AttemptVerdict,
  type DeliveryDecision,
} from '../../src/dispatcher/retry-policy';
import { dueAction } from '../../src/dispatcher/due-gate';

const schedule = retrySchedule([60, 300, 1800, 7200]);

describe('retry schedule', () => {
  it('allows one attempt more than there are delays', () => expect(schedule.maxAttempts).toBe(5));
  it('puts the wait before attempt n+1 in tier n, with the configured delay', () => {
    expect(schedule.waitBefore(2)).toEqual({ tier: 'retry1', delayMs: 60_000 });
    expect(schedule.waitBefore(3)).toEqual({ tier: 'retry2', delayMs: 300_000 });
    expect(schedule.waitBefore(4)).toEqual({ tier: 'retry3', delayMs: 1_800_000 });
    expect(schedule.waitBefore(5)).toEqual({ tier: 'retry4', delayMs: 7_200_000 });
  });
  it('has no wait before the first attempt or after the last', () => {
    expect(() => schedule.waitBefore(1)).toThrow();
    expect(() => schedule.waitBefore(6)).toThrow();
  });
  it('needs exactly one delay per tier topic', () => expect(() => retrySchedule([1, 2, 3])).toThrow(/4 retry delays/));
});

describe('Retry-After (429, 503)', () => {
  it('waits as long as the partner asks, in the tier with the shortest delay that covers it', () => {
    expect(schedule.waitBefore(2, 120_000)).toEqual({ tier: 'retry2', delayMs: 120_000 });
    expect(schedule.waitBefore(2, 3_600_000)).toEqual({ tier: 'retry4', delayMs: 3_600_000 });
  });
  it('never waits less than the schedule', () => {
    expect(schedule.waitBefore(3, 10_000)).toEqual({ tier: 'retry2', delayMs: 300_000 });
    expect(schedule.waitBefore(2, null)).toEqual({ tier: 'retry1', delayMs: 60_000 });
  });
  it("never waits longer than the schedule's last delay", () =>
    expect(schedule.waitBefore(2, 86_400_000)).toEqual({ tier: 'retry4', delayMs: 7_200_000 }));
  it('reads seconds and HTTP dates; a past date asks for no wait; nonsense asks for nothing', () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    expect(retryAfterMs('30', now)).toBe(30_000);
    expect(retryAfterMs('Mon, 23 Nov 2026 12:01:00 GMT', now)).toBe(60_000);
    expect(retryAfterMs('Mon, 23 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('-5', now)).toBeNull();
    expect(retryAfterMs('later', now)).toBeNull();
    expect(retryAfterMs(undefined, now)).toBeNull();
  });
  it('a decision after a 429 carries the asked wait', () => {
    const d = decideAfterAttempt({ attemptsMade: 0, attemptsLeft: 5 }, 'retriable', 1000, schedule, 900_000);
    expect(d).toEqual({ state: 'queued', attemptsMade: 1, attemptsLeft: 4, nextAttemptAt: 901_000, tier: 'retry3' });
  });
});

describe('attempt classification (spec 6.3)', () => {
  const status = (httpStatus: number) => classifyAttempt({ httpStatus, failure: null });
  // Each failure by the text a delivery record shows for it.
  const FAILURES: Record<string, AttemptFailure> = {
    timeout: { kind: 'timeout' },
    'connection_error:ECONNREFUSED': { kind: 'connection_error', code: 'ECONNREFUSED' },
    'address_refused:loopback': { kind: 'address_refused', range: 'loopback' },
    https_required: { kind: 'https_required' },
    invalid_url: { kind: 'invalid_url' },
    no_callback_url: { kind: 'no_callback_url' },
    'payload_refused:money_field:amount': { kind: 'payload_refused', reason: 'money_field', detail: 'amount' },
  };
  const error = (e: string) => classifyAttempt({ httpStatus: null, failure: FAILURES[e] ?? null });
  it('2xx is delivered', () => [200, 201, 204, 299].forEach((s) => expect(status(s)).toBe('delivered')));
  it('5xx, 408 and 429 are retried', () =>
    [500, 502, 503, 599, 408, 429].forEach((s) => expect(status(s)).toBe('retriable')));
  it('other 4xx, and 3xx (redirects are not followed), are permanent', () =>
    [400, 401, 403, 404, 410, 422, 301, 302, 307, 308, 101].forEach((s) => expect(status(s)).toBe('permanent')));
  it('timeouts and connection errors are retried', () => {
    expect(error('timeout')).toBe('retriable');
    expect(error('connection_error:ECONNREFUSED')).toBe('retriable');
  });
  it('a refused destination is permanent, a refused payload can never be sent', () => {
    expect(error('address_refused:loopback')).toBe('permanent');
    expect(error('https_required')).toBe('permanent');
    expect(error('invalid_url')).toBe('permanent');
    expect(error('no_callback_url')).toBe('permanent');
    expect(error('payload_refused:money_field:amount')).toBe('unsendable');
  });
  it('a status wins over an error raised while reading the body', () =>
    expect(classifyAttempt({ httpStatus: 200, failure: { kind: 'timeout' } })).toBe('delivered'));
  it('shows each failure as the text it is stored and logged as', () =>
    Object.entries(FAILURES).forEach(([text, failure]) => expect(failureText(failure)).toBe(text)));
});

// Runs a delivery from its first attempt through the given verdicts, one attempt each.
function run(verdicts: AttemptVerdict[]): DeliveryDecision[] {
  let counters = { attemptsMade: 0, attemptsLeft: schedule.maxAttempts };
  return verdicts.map((v, i) => {
    const d = decideAfterAttempt(counters, v, 1_000_000 * (i + 1), schedule);
    counters = { attemptsMade: d.attemptsMade, attemptsLeft: d.attemptsLeft };
    return d;
  });
}

describe('delivery state after an attempt', () => {
  it('is delivered on success', () =>
    expect(run(['delivered'])).toEqual([{ state: 'delivered', attemptsMade: 1, attemptsLeft: 0 }]));

  it('fails twice then succeeds: retries in tier 1 then 2, at now + delay', () => {
    const [first, second, third] = run(['retriable', 'retriable', 'delivered']);
    expect(first).toEqual({
      state: 'queued',
      attemptsMade: 1,
      attemptsLeft: 4,
      nextAttemptAt: 1_000_000 + 60_000,
      tier: 'retry1',
    });
    expect(second).toEqual({
      state: 'queued',
      attemptsMade: 2,
      attemptsLeft: 3,
      nextAttemptAt: 2_000_000 + 300_000,
      tier: 'retry2',
    });
    expect(third).toEqual({ state: 'delivered', attemptsMade: 3, attemptsLeft: 0 });
  });

  it('is dead after the fifth retriable failure, having used every tier', () => {
    const decisions = run(['retriable', 'retriable', 'retriable', 'retriable', 'retriable']);
    expect(decisions.map((d) => (d.state === 'queued' ? d.tier : d.state))).toEqual([
      'retry1',
      'retry2',
      'retry3',
      'retry4',
      'dead',
    ]);
    expect(decisions[4]).toEqual({ state: 'dead', attemptsMade: 5, attemptsLeft: 0 });
  });

  it('gives a permanent failure one more retry only: a 404 makes exactly 2 attempts', () => {
    const [first, second] = run(['permanent', 'permanent']);
    expect(first).toMatchObject({ state: 'queued', attemptsMade: 1, attemptsLeft: 1, tier: 'retry1' });
    expect(second).toEqual({ state: 'dead', attemptsMade: 2, attemptsLeft: 0 });
  });

  it('does not extend the attempts left when the one more retry fails differently', () =>
    expect(run(['permanent', 'retriable'])[1]).toEqual({ state: 'dead', attemptsMade: 2, attemptsLeft: 0 }));

  it('a permanent failure late in the schedule keeps the attempts it has', () => {
    const decisions = run(['retriable', 'retriable', 'retriable', 'permanent', 'permanent']);
    expect(decisions[3]).toMatchObject({ state: 'queued', attemptsLeft: 1, tier: 'retry4' });
    expect(decisions[4]).toEqual({ state: 'dead', attemptsMade: 5, attemptsLeft: 0 });
  });

  it('a refused payload is dead at once', () =>
    expect(run(['unsendable'])).toEqual([{ state: 'dead', attemptsMade: 1, attemptsLeft: 0 }]));

  it('never goes beyond the schedule, whatever the counters say', () =>
    expect(decideAfterAttempt({ attemptsMade: 4, attemptsLeft: 5 }, 'retriable', 0, schedule)).toEqual({
      state: 'dead',
      attemptsMade: 5,
      attemptsLeft: 0,
    }));
});

describe('due gate', () => {
  it('runs what is due', () => {
    expect(dueAction(1000, 1000, 500)).toEqual({ kind: 'run' });
    expect(dueAction(1000, 1500, 500)).toEqual({ kind: 'run' });
  });
  it('holds what is due within the window, for exactly the rest', () =>
    expect(dueAction(1000, 700, 500)).toEqual({ kind: 'hold', ms: 300 }));
  it('pauses what is due later, resuming one window early', () =>
    expect(dueAction(10_000, 1000, 500)).toEqual({ kind: 'pause', resumeInMs: 8500 }));
});
