import { randomUUID } from 'node:crypto';
import type { Producer } from 'kafkajs';
import type { TopicCodec } from '../shared/kafka/codec';
import type { TopicNames } from '../shared/kafka/topics';
import type { Logger } from '../shared/logger';
import { everyInterval, type PeriodicTask } from '../shared/periodic-task';
import type { LeadCommand } from '../shared/schemas';
import type { IntakeDecisionStore } from '../shared/store/intake-decisions';
import type { AgentRoster } from './agent-roster';
import type { DedupClaims } from './dedup-claims';
import type { ParkedMessages } from './parked-messages';
import type { WaitingLeads } from './waiting-leads';

const LIST_LIMIT = 500;
// An assign command asked for a lead is not asked again before this, while its owner applies it.
const ASK_AGAIN_MS = 30_000;
const HOUSEKEEPING_MS = 3_600_000;

export interface DistributionDeps {
  roster: AgentRoster;
  waiting: WaitingLeads;
  parked: ParkedMessages;
  decisions: IntakeDecisionStore;
  claims: DedupClaims;
  longestDedupWindowMs: () => Promise<number>;
  producer: Producer;
  codec: TopicCodec;
  topics: TopicNames;
  logger: Logger;
}

// The processor's clock: re-reads the agents, asks the owners of waiting leads that an agent now
// fits to assign them and the owners of parked CRM messages to try them again (commands on the
// lead's topic: the owner is the only writer of a lead), and once an hour drops the intake
// decisions past the idempotency window and the dedup claims past the longest dedup window. Reads only small collections (agents, waiting leads,
// parked messages): nothing it does grows with the leads stored.
export class Distribution {
  private task: PeriodicTask | null = null;
  private readonly asked = new Map<string, number>();
  private lastHousekeeping = 0;
  // Where each list goes on next tick: every waiting lead and parked message gets its turn.
  private readonly after = { waiting: null as string | null, parked: null as string | null };

  constructor(private readonly d: DistributionDeps) {}

  start(intervalMs: number): void {
    this.task = everyInterval('distribution', intervalMs, () => this.tick(new Date()), this.d.logger);
  }

  async stop(): Promise<void> {
    await this.task?.stop();
  }

  async tick(now: Date): Promise<void> {
    await this.d.roster.refresh();
    for (const [id, at] of this.asked) if (now.getTime() - at > ASK_AGAIN_MS) this.asked.delete(id);
    const waiting = await this.page('waiting', (after) => this.d.waiting.list(after, LIST_LIMIT));
    const assign = waiting.filter((w) => !this.asked.has(w._id) && this.d.roster.fits(w));
    // A parked message is tried again on its turn (its owner drops a retry whose message is gone).
    const retry = await this.page('parked', (after) => this.d.parked.list(after, LIST_LIMIT));
    const commands = [
      ...assign.map((w): LeadCommand => ({ command_id: randomUUID(), lead_id: w._id, kind: 'assign', issued_at: now.toISOString() })),
      ...retry.map((p): LeadCommand => ({ command_id: randomUUID(), lead_id: p.lead_id, kind: 'retry_parked', parked_id: p._id, issued_at: now.toISOString() })),
    ];
    if (commands.length > 0) {
      const messages = await Promise.all(commands.map(async (cmd) => ({ key: cmd.lead_id, value: await this.d.codec.encode('leadCommands', cmd) })));
      await this.d.producer.sendBatch({ topicMessages: [{ topic: this.d.topics.leadCommands, messages }] });
      for (const w of assign) this.asked.set(w._id, now.getTime());
    }
    await this.housekeeping(now);
  }

  private async page<T extends { _id: string }>(list: 'waiting' | 'parked', read: (after: string | null) => Promise<T[]>): Promise<T[]> {
    const rows = await read(this.after[list]);
    this.after[list] = rows.length < LIST_LIMIT ? null : (rows[rows.length - 1] as T)._id;
    return rows;
  }

  private async housekeeping(now: Date): Promise<void> {
    if (now.getTime() - this.lastHousekeeping < HOUSEKEEPING_MS) return;
    this.lastHousekeeping = now.getTime();
    const dropped = [
      ...(await this.d.decisions.dropExpired(now)),
      ...(await this.d.claims.dropExpired(now, await this.d.longestDedupWindowMs())),
    ];
    if (dropped.length > 0) this.d.logger.info({ collections: dropped }, 'dropped collections past their window');
  }
}
