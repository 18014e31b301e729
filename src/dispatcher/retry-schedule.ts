import { RETRY_TIERS, type TopicKey } from '../shared/kafka/topics';

// When attempt n of a delivery may run and which retry topic holds it while it waits. Attempt 1 is
// immediate; attempt n+1 waits delaysS[n-1] in tier topic n. The delays are configuration
// (CALLBACK_RETRY_DELAYS_S), one per tier topic, so max attempts = delays + 1.
export interface RetryWait {
  tier: TopicKey;
  delayMs: number;
}

export interface RetrySchedule {
  readonly maxAttempts: number;
  waitBefore(attempt: number): RetryWait;
}

export function retrySchedule(delaysS: readonly number[]): RetrySchedule {
  if (delaysS.length !== RETRY_TIERS.length) {
    throw new Error(`expected ${RETRY_TIERS.length} retry delays (one per tier topic), got ${delaysS.length}`);
  }
  return {
    maxAttempts: delaysS.length + 1,
    waitBefore(attempt: number): RetryWait {
      const delayS = delaysS[attempt - 2];
      const tier = RETRY_TIERS[attempt - 2];
      if (delayS === undefined || tier === undefined) throw new Error(`attempt ${attempt} has no retry tier`);
      return { tier, delayMs: delayS * 1000 };
    },
  };
}
