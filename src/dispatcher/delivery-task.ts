import type { IHeaders } from 'kafkajs';

// The headers of DeliveryTask messages on the retry and dead topics (published by delivery-topics.ts).
// When the task is due (epoch ms) and which attempt it is for travel in headers, so the lead's owner
// can decide to wait without decoding the value. On the dead topic x-attempt is the last attempt made. A retry task is
// the token of its delivery: its holder is the only writer of the record until it ends or hands on.
export const DUE_AT_HEADER = 'x-due-at';
export const ATTEMPT_HEADER = 'x-attempt';

export interface TaskTiming {
  dueAt: number;
  attempt: number;
}

export function taskHeaders(timing: TaskTiming): Record<string, string> {
  return { [DUE_AT_HEADER]: String(timing.dueAt), [ATTEMPT_HEADER]: String(timing.attempt) };
}

export function readTaskHeaders(headers: IHeaders | undefined): TaskTiming | null {
  const dueAt = headerNumber(headers?.[DUE_AT_HEADER]);
  const attempt = headerNumber(headers?.[ATTEMPT_HEADER]);
  return dueAt === null || attempt === null ? null : { dueAt, attempt };
}

function headerNumber(value: IHeaders[string]): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return null;
  const text = raw.toString();
  return /^\d{1,16}$/.test(text) ? Number(text) : null;
}
