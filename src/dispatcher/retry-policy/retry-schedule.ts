import { RETRY_TIERS, type TopicKey } from '../../shared/kafka/topics';

// When attempt n of a delivery may run and which retry topic holds it while it waits. Attempt 1 is
// immediate; attempt n+1 waits delaysS[n-1] in tier topic n. The delays are configuration
// (CALLBACK_RETRY_DELAYS_S), one per tier topic, so max attempts = delays + 1.
export interface RetryWait {
  tier: TopicKey;
  delayMs: number;
}

export interface RetrySchedule {
  readonly maxAttempts: number;
  // askedMs: the partner's Retry-After. The wait is never shorter than the schedule's, nor longer
  // than its last delay; a longer wait than the attempt's own tier goes to the tier with the
  // shortest delay that covers it, so it never holds up the tasks behind it in a shorter tier.
  waitBefore(attempt: number, askedMs?: number | null): RetryWait;
}

export function retrySchedule(delaysS: readonly number[]): RetrySchedule {
  if (delaysS.length !== RETRY_TIERS.length) {
    throw new Error(`expected ${RETRY_TIERS.length} retry delays (one per tier topic), got ${delaysS.length}`);
  }
  const delaysMs = delaysS.map((s) => s * 1000);
  const longestMs = Math.max(...delaysMs);
  return {
    maxAttempts: delaysS.length + 1,
    waitBefore(attempt: number, askedMs?: number | null): RetryWait {
      const ownMs = delaysMs[attempt - 2];
      const tier = RETRY_TIERS[attempt - 2];
      if (ownMs === undefined || tier === undefined) throw new Error(`attempt ${attempt} has no retry tier`);
      const delayMs = Math.max(ownMs, Math.min(askedMs ?? 0, longestMs));
      if (delayMs === ownMs) return { tier, delayMs };
      return { tier: coveringTier(delaysMs, delayMs), delayMs };
    },
  };
}

function coveringTier(delaysMs: readonly number[], delayMs: number): TopicKey {
  let best = -1;
  delaysMs.forEach((d, i) => {
    if (d >= delayMs && (best < 0 || d < (delaysMs[best] as number))) best = i;
  });
  return RETRY_TIERS[best] as TopicKey;
}
