// The workspace's answers as the console reads them (the server's src/manager/workspace).
export type QueuePart = 'callback_due' | 'new' | 'worked' | 'callback_later';

export interface QueueItem {
  id: string;
  affiliate_id: string;
  status: string;
  queue: QueuePart;
  callback_at: string | null;
  is_depositor: boolean;
  country_code: string | null;
  language: string | null;
  source: string | null;
  phone: string | null;
  created_at: string;
  updated_at: string;
}

export const PART_LABELS: Record<QueuePart, string> = {
  callback_due: 'Callback due',
  new: 'New',
  worked: 'In progress',
  callback_later: 'Callback later',
};

// How often a queue is read again anyway (new leads, reassignments), in ms.
export const QUEUE_POLL_MS = 15_000;

// When to read the queue again: at the next scheduled callback's time (it then comes due and tops the
// queue), or the poll interval, whichever is sooner. Pure.
export function nextQueueRead(items: readonly Pick<QueueItem, 'queue' | 'callback_at'>[], now: number): number {
  const times = items
    .filter((i) => i.queue === 'callback_later' && i.callback_at !== null)
    .map((i) => Date.parse(i.callback_at!) - now);
  return Math.max(250, Math.min(QUEUE_POLL_MS, ...times.map((t) => t + 250)));
}
