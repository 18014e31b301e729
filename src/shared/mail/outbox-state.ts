// A message of the outbox as a state machine: queued (due at next_at) → sending (claimed by one
// sender until claimed_until) → sent | queued again (a later try) | dead (tries used up). The
// content (`sealed`: the template's values, encrypted) is dropped once the message is sent or dead.
import type { TemplateName } from './templates';

interface MailBase {
  _id: string;
  template: TemplateName;
  to: string;
  created_at: Date;
  // Tries started, counted when claimed: a sender that dies mid-try has used one.
  attempts: number;
  last_error: string | null;
}

export type MailDoc =
  | (MailBase & { state: 'queued'; next_at: Date; sealed: string })
  | (MailBase & { state: 'sending'; claimed_until: Date; sealed: string })
  | (MailBase & { state: 'sent'; sent_at: Date })
  | (MailBase & { state: 'dead'; dead_at: Date });

export type MailState = MailDoc['state'];

export interface RetryPolicy {
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
}

// The wait before try n + 1 after n failed ones: the base doubled each time, capped.
export function retryDelayMs(attempts: number, p: RetryPolicy): number {
  return Math.min(p.retryMaxMs, p.retryBaseMs * 2 ** Math.max(0, attempts - 1));
}

export type AfterFailure = { state: 'queued'; next_at: Date } | { state: 'dead'; dead_at: Date };

// What a failed try leaves: another try later, or dead once the tries are used up or the relay
// refused the message for good (a 5xx answer to it).
export function afterFailure(attempts: number, permanent: boolean, now: Date, p: RetryPolicy): AfterFailure {
  if (permanent || attempts >= p.maxAttempts) return { state: 'dead', dead_at: now };
  return { state: 'queued', next_at: new Date(now.getTime() + retryDelayMs(attempts, p)) };
}
