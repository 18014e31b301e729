import { randomUUID } from 'node:crypto';
import type { Producer } from 'kafkajs';
import type { TopicCodec } from '../shared/kafka/codec';
import type { TopicNames } from '../shared/kafka/topics';
import type { Logger } from '../shared/logger';
import { everyInterval, type PeriodicTask } from '../shared/periodic-task';
import type { LeadCommand } from '../shared/schemas';
import type { IntakeDecisionStore } from '../shared/store/intake-decisions';
import type { AgentRoster } from './agent-roster';
import type { WaitingLeads } from './waiting-leads';

const LIST_LIMIT = 500;
// An assign command asked for a lead is not asked again before this, while its owner applies it.
const ASK_AGAIN_MS = 30_000;
const HOUSEKEEPING_MS = 3_600_000;

export interface DistributionDeps {
  roster: AgentRoster;
  waiting: WaitingLeads;
  decisions: IntakeDecisionStore;
  producer: Producer;
  codec: TopicCodec;
  topics: TopicNames;
  logger: Logger;
}

// The processor's clock: re-reads the agents, asks the owners of waiting leads that an agent now
// fits to assign them (a command on the lead's topic: the owner is the only writer of a lead), and
// once an hour drops the intake decisions past the idempotency window. Reads only the small
// collections (agents, waiting leads): nothing it does grows with the leads stored.
export class Distribution {
  private task: PeriodicTask | null = null;
  private readonly asked = new Map<string, number>();
  private lastHousekeeping = 0;

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
    const due = (await this.d.waiting.list(LIST_LIMIT)).filter((w) => !this.asked.has(w._id) && this.d.roster.fits(w));
    if (due.length > 0) {
      const messages = await Promise.all(due.map(async (w) => {
        const cmd: LeadCommand = { command_id: randomUUID(), lead_id: w._id, kind: 'assign', issued_at: now.toISOString() };
        return { key: w._id, value: await this.d.codec.encode('leadCommands', cmd) };
      }));
      await this.d.producer.sendBatch({ topicMessages: [{ topic: this.d.topics.leadCommands, messages }] });
      for (const w of due) this.asked.set(w._id, now.getTime());
    }
    if (now.getTime() - this.lastHousekeeping >= HOUSEKEEPING_MS) {
      this.lastHousekeeping = now.getTime();
      const dropped = await this.d.decisions.dropExpired(now);
      if (dropped.length > 0) this.d.logger.info({ collections: dropped }, 'dropped intake decisions past the idempotency window');
    }
  }
}
