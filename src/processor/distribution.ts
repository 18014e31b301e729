import type { Clock } from '../shared/clock';
import type { Logger } from '../shared/logger';
import { everyInterval, type PeriodicTask } from '../shared/periodic-task';
import type { IntakeDecisionStore } from '../shared/store/intake-decisions';
import type { AgentRoster } from './agent-roster';
import type { DedupClaims } from './dedup-claims';
import { leadCommand, type LeadCommands } from './lead-commands';
import type { ParkedMessages } from './parked-messages';
import type { Retention } from './retention';
import type { IntakeKeyStore } from '../shared/store/intake-keys';
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
  intakeKeys: Pick<IntakeKeyStore, 'dropExpired'>;
  intakeKeyHours: number;
  longestDedupWindowMs: () => Promise<number>;
  commands: LeadCommands;
  retention: Retention;
  logger: Logger;
}

// The processor's clock: re-reads the agents, asks the owners of waiting leads that an agent now
// fits to assign them and the owners of parked CRM messages to try them again (commands on the
// lead's topic: the owner is the only writer of a lead), and once an hour drops the intake
// decisions past the idempotency window, the dedup claims past the longest dedup window and the
// intake data keys past INTAKE_KEY_HOURS, and
// erases the personal data of leads past the retention (Retention). Reads only small collections
// (agents, waiting leads, parked messages, one day's keys): nothing it does grows with the leads stored.
export class Distribution {
  private task: PeriodicTask | null = null;
  private readonly asked = new Map<string, number>();
  private lastHousekeeping = 0;
  // Where each list goes on next tick: every waiting lead and parked message gets its turn.
  private readonly after = { waiting: null as string | null, parked: null as string | null };

  constructor(private readonly d: DistributionDeps) {}

  start(intervalMs: number, clock: Clock): void {
    this.task = everyInterval('distribution', intervalMs, () => this.tick(clock.now()), this.d.logger);
  }

  // A tick now (an agent changed: waiting leads it fits need not wait for the interval).
  soon(): void {
    this.task?.soon();
  }

  async stop(): Promise<void> {
    await this.task?.stop();
  }

  async tick(now: Date): Promise<void> {
    await this.d.roster.refresh();
    for (const [id, at] of this.asked) if (now.getTime() - at > ASK_AGAIN_MS) this.asked.delete(id);
    const waiting = await this.page('waiting', (after) => this.d.waiting.list(after, LIST_LIMIT));
    const assign = waiting.filter((w) => !this.asked.has(w._id) && this.d.roster.fits(w, now));
    // A parked message is tried again on its turn (its owner drops a retry whose message is gone).
    const retry = await this.page('parked', (after) => this.d.parked.list(after, LIST_LIMIT));
    await this.d.commands.publish([
      ...assign.map((w) => leadCommand(w._id, 'assign', now)),
      ...retry.map((p) => leadCommand(p.lead_id, 'retry_parked', now, { parked_id: p._id })),
    ]);
    for (const w of assign) this.asked.set(w._id, now.getTime());
    await this.housekeeping(now);
  }

  private async page<T extends { _id: string }>(
    list: 'waiting' | 'parked',
    read: (after: string | null) => Promise<T[]>,
  ): Promise<T[]> {
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
      ...(await this.d.intakeKeys.dropExpired(now, this.d.intakeKeyHours)),
    ];
    if (dropped.length > 0) this.d.logger.info({ collections: dropped }, 'dropped collections past their window');
    const erased = await this.d.retention.run(now);
    if (erased.days.length > 0) this.d.logger.info(erased, 'erased personal data past the retention');
  }
}
