import type { LeadEvent } from '../../src/shared/schemas';
import type { Arrival } from '../receiver';
import type { Helper } from './roles';
import { summarise, type Summary } from './stats';

// Another partner's events, one a second, to a healthy endpoint while a backlog is worked off: how
// long each waits for its callback shows whether the backlog stalls the others.
export interface Trickle {
  sent: number;
  delivered: number;
  lagMs: Summary; // publish to arrival, of those delivered
  oldestWaitingMs: number | null; // the longest an undelivered one had waited when the phase ended
}

const EVERY_MS = 1000;

export function startTrickle(
  receiver: Helper,
  path: string,
  event: () => LeadEvent,
  publish: (events: LeadEvent[]) => Promise<void>,
): () => Promise<Trickle> {
  const sentAt = new Map<string, number>();
  let sending = Promise.resolve();
  const timer = setInterval(() => {
    const e = event();
    // One at a time, in order; a slow publish delays the next, it does not pile them up.
    sending = sending.then(async () => {
      sentAt.set(e.lead_id, Date.now());
      await publish([e]);
    });
  }, EVERY_MS);
  return async () => {
    clearInterval(timer);
    await sending;
    const end = Date.now();
    const arrivals = await receiver.request<Arrival[]>({ type: 'arrivals', path });
    const lags: number[] = [];
    const delivered = new Set<string>();
    for (const a of arrivals) {
      const at = sentAt.get(a.lead);
      if (a.status !== 200 || at === undefined || delivered.has(a.lead)) continue;
      delivered.add(a.lead);
      lags.push(a.t - at);
    }
    const waiting = [...sentAt].filter(([lead]) => !delivered.has(lead)).map(([, at]) => end - at);
    return {
      sent: sentAt.size,
      delivered: delivered.size,
      lagMs: summarise(lags),
      oldestWaitingMs: waiting.length > 0 ? Math.max(...waiting) : null,
    };
  };
}
