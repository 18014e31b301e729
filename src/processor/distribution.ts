import type { Clock } from '../shared/clock';
import type { Logger } from '../shared/logger';
import { whenDue, type PeriodicTask } from '../shared/periodic-task';
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
// At rest (nothing waiting or parked, no lead handed out since the last tick) it looks again after
// this, or at once when this process sets a lead waiting, parks a message or hands out a lead.
const AT_REST_MS = 30_000;

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
// It ticks every interval while anything waits, and every AT_REST_MS when nothing does.
export class Distribution {
  private task: PeriodicTask | null = null;
  private atRest = false;
  private readonly asked = new Map<string, number>();
  private lastHousekeeping = 0;
  // Where each list goes on next tick: every waiting lead and parked message gets its turn.
  private readonly after = { waiting: null as string | null, parked: null as string | null };

  constructor(private readonly d: DistributionDeps) {}

  start(intervalMs: number, clock: Clock): void {
    const work = async (): Promise<Date | null> => {
      const busy = await this.tick(clock.now());
      this.atRest = !busy;
      return busy ? new Date(Date.now() + intervalMs) : null;
    };
    this.task = whenDue('distribution', Math.max(intervalMs, AT_REST_MS), work, this.d.logger);
  }

  // This process set a lead waiting, parked a message or handed out a lead: a distribution at rest
  // looks now; a busy one sees it on its next tick.
  woken(): void {
    if (!this.atRest) return;
    this.atRest = false;
    this.task?.soon();
  }

  // A tick now (an agent changed: waiting leads it fits need not wait for the interval).
  soon(): void {
    this.task?.soon();
  }

  async stop(): Promise<void> {
    await this.task?.stop();
  }

  // Whether anything waits or was handed out (then the next tick comes after the interval).
  async tick(now: Date): Promise<boolean> {
    const saved = await this.d.roster.refresh();
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
    return waiting.length > 0 || retry.length > 0 || saved > 0;
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
