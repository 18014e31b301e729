import type { IHeaders, Message } from 'kafkajs';
import type { TopicCodec } from '../shared/kafka/codec';
import { idleCheck, type Assignment } from './idle-redistribution';

const DUE_AT_HEADER = 'x-due-at';

// Turns fresh assignments into delayed reassign_idle commands for `leads.idle-checks`, due
// IDLE_REDISTRIBUTION_S later (0: off, none are made). The due time rides in a header, so the
// forwarder can hold a partition without decoding its head.
export class IdleChecks {
  constructor(
    private readonly codec: TopicCodec,
    private readonly delayMs: number,
  ) {}

  async messages(assignments: readonly Assignment[], now: Date): Promise<Message[]> {
    if (this.delayMs === 0) return [];
    const dueAt = String(now.getTime() + this.delayMs);
    return Promise.all(
      assignments.map(async (a) => ({
        key: a.lead_id,
        value: await this.codec.encode('idleChecks', idleCheck(a, now)),
        headers: { [DUE_AT_HEADER]: dueAt },
      })),
    );
  }
}

// Milliseconds since the epoch at which a check is due (0 for a message without the header: now).
export function dueAtOf(headers: IHeaders | undefined): number {
  const raw = headers?.[DUE_AT_HEADER];
  const n = Number(Buffer.isBuffer(raw) ? raw.toString() : raw);
  return Number.isFinite(n) ? n : 0;
}
