import { kindField, kindOf } from '../../shared/delivery-kind';
import type { DeliveryDoc } from '../../shared/mongo/delivery-doc';
import { testLabel } from '../../shared/mongo/documents';
import type { BlockStore } from './block-store';
import { published } from '../delivery-topics';
import { newItem, type Item, type OwnedPartitions } from './owned-partitions';
import { LeadWrites, type RecordBatcher } from './lead-writes';
import type { RetryDeps } from './retry-turns';
import type { DeliveryCounters } from '../retry-policy';
import { plan, recordedLate, type OwnerInput, type Step } from './plan';

export interface CarryOutDeps extends RetryDeps {
  blocks: BlockStore;
  batcher: RecordBatcher;
}

// A lead's line under one assignment: where a plan is carried out.
export interface Lead {
  a: OwnedPartitions;
  key: string; // leadKey(endpoint, lead)
  endpoint: string;
  partition: number;
}

export const leadOf = (item: Item): Lead => ({
  a: item.assignment,
  key: item.key,
  endpoint: item.endpoint,
  partition: item.partition,
});

// What the steps of one piece share: the attempt's task, once it is being published.
interface Piece {
  sent?: Promise<void>;
}

// A step's outcome: go on, stop (a write refused, a publish given up), or the rest was handed on.
type Went = boolean | 'handed-on';

// The one writer of the lead owner's plans (plan.ts): it carries steps out in their order, each
// write behind the fences it passes (lead-writes.ts). Steps that need no I/O run at once, so a
// caller reads the lead's writes right after planning; everything that goes on after the caller
// returns is tracked by the lead's assignment (its hand-over waits for it) and a failure is logged.
export class CarryOut {
  private readonly writes: LeadWrites;

  constructor(
    private readonly deps: CarryOutDeps,
    private readonly parkLead: (lead: Lead) => void,
  ) {
    this.writes = new LeadWrites(deps);
  }

  // Plans the input and carries it out; what is left under way is tracked.
  apply(lead: Lead, input: OwnerInput<Item>): void {
    const went = this.run(lead, this.plan(lead, input));
    if (went instanceof Promise) this.start(lead.a, went, { key: lead.key }, "could not carry out a lead's plan");
  }

  // The same, for a caller that waits for it.
  async carry(lead: Lead, input: OwnerInput<Item>): Promise<void> {
    await this.run(lead, this.plan(lead, input));
  }

  // The input planned over the lead's line (LeadLines.update keeps the line it leaves).
  private plan(lead: Lead, input: OwnerInput<Item>): Step<Item>[] {
    return lead.a.lines.update(lead.key, (line) => plan(line, input)).steps;
  }

  // Work that goes on after its step: the hand-over waits for it, and a failure is logged.
  start(a: OwnedPartitions, work: Promise<unknown>, context: Record<string, unknown>, failure: string): void {
    a.work.track(
      work.then(undefined, (err: unknown) => this.deps.logger.error({ ...context, err: errText(err) }, failure)),
    );
  }

  // Steps from `from` on, in order, until one stops them; synchronous up to the first that waits.
  private run(lead: Lead, steps: Step<Item>[], from = 0, piece: Piece = {}): Went | Promise<Went> {
    for (let i = from; i < steps.length; i++) {
      const went = this.step(lead, steps[i] as Step<Item>, piece, () => steps.slice(i + 1));
      if (went instanceof Promise)
        return went.then((w) => (w === true && i + 1 < steps.length ? this.run(lead, steps, i + 1, piece) : w));
      if (went !== true) return went;
    }
    return true;
  }

  private step(lead: Lead, step: Step<Item>, piece: Piece, rest: () => Step<Item>[]): Went | Promise<Went> {
    const { a, key, partition } = lead;
    const { scheduler } = this.deps;
    switch (step.do) {
      case 'save-block':
        this.writes.saveBlock(a, key, partition, step.block);
        return true;
      case 'publish-task': {
        const { item, done } = step;
        piece.sent = this.deps.attempts.carryOn(item.id, item.kind, item.event, done, () => !a.work.fenced);
        return true;
      }
      case 'record-in-turn': {
        const { item, done } = step;
        const sent = piece.sent;
        this.writes.inTurn(a, key, async () => {
          await sent;
          if (!this.writes.fenced(item, 'held record')) await this.writes.recordAttempt(item, done);
        });
        return true;
      }
      case 'leave-slot':
        // The record is written outside the partner's slot: the slots cap requests to the partner, and
        // a slot held for the bulk write would leave the next callback waiting on the database.
        return (piece.sent ?? Promise.resolve()).then(() => {
          const recording = this.run(lead, rest());
          this.start(
            a,
            Promise.resolve(recording),
            { delivery_id: step.item.id },
            'could not record a delivery attempt; its offset stays uncommitted',
          );
          return 'handed-on' as const;
        });
      case 'publish-overflow':
        return this.publishOverflow(step.item, step.dueAt);
      case 'after-line':
        return this.afterLine(step.item, step.what);
      case 'write':
        return this.writes.write(step.item, step.write);
      case 'count-held':
      case 'count-parked': {
        const { event } = step.item;
        this.deps.metrics.deliveries.inc({
          event: event.event,
          outcome: 'held',
          partner_id: event.partner_id,
          ...(step.do === 'count-held' && { test: testLabel(event.test) }),
        });
        return true;
      }
      case 'settle':
        step.item.assignment.settle(step.item);
        return true;
      case 'fork':
        this.started(lead, this.run(lead, step.steps), 'could not carry out a step of a delivery');
        return true;
      case 'send':
        return this.decided(lead, { kind: 'send', item: step.item, earlierJob: scheduler.isPending(step.item.id) });
      case 'await-earlier-job':
        return (scheduler.settled(step.item.id) ?? Promise.resolve()).then(() => a.work.open);
      case 'submit':
        return this.submit(lead, step.item);
      case 'read-turn':
        return this.readTurn(lead, step.id);
      case 'send-record': {
        const { record } = step;
        const item = newItem(a, record._id, kindOf(record), record.event, partition, record, null);
        a.activate(item);
        return this.run(lead, [{ do: 'send', item }]);
      }
      case 'park-lead':
        this.parkLead(lead);
        return true;
      case 'decide':
        return this.decided(lead, step.input);
    }
  }

  // A nested plan: its stop ends it, not the steps that follow it.
  private decided(lead: Lead, input: OwnerInput<Item>): Went | Promise<Went> {
    const went = this.run(lead, this.plan(lead, input));
    return went instanceof Promise ? went.then(() => true) : true;
  }

  private started(lead: Lead, went: Went | Promise<Went>, failure: string): void {
    if (went instanceof Promise) this.start(lead.a, went, { key: lead.key }, failure);
  }

  private submit(lead: Lead, item: Item): Went | Promise<Went> {
    const { scheduler, schedule, clock } = this.deps;
    const { work } = item.assignment;
    // Held (paused, or its circuit open): set aside at once, without a slot of the partner's.
    if (this.deps.hold.holds(item.endpoint)) return this.decided(lead, { kind: 'paused', item });
    const accepted = scheduler.submit({
      deliveryId: item.id,
      partnerId: item.endpoint,
      // Not started before the hand-over: left to the next owner (its offset is uncommitted).
      fenced: () => !work.open,
      run: () => (work.open ? work.track(this.attempt(item)) : Promise.resolve()),
    });
    if (accepted) return true;
    const dueAt = clock.now().getTime() + schedule.waitBefore(2).delayMs;
    return this.decided(lead, { kind: 'refused', item, stopping: scheduler.stopping, dueAt });
  }

  private async attempt(item: Item): Promise<void> {
    const lead = leadOf(item);
    const permit = this.deps.hold.mayAttempt(item.endpoint);
    if (!permit) return this.carry(lead, { kind: 'paused', item });
    const before = countersOf(item.doc, this.deps.schedule.maxAttempts);
    const { work } = item.assignment;
    const done = await this.deps.attempts.attempt(item.id, item.kind, item.event, before, () => !work.fenced, permit);
    // Withheld only once fenced (its offset stays uncommitted: the next owner sends it).
    if (done === null) return;
    if (work.fenced && recordedLate(done)) return this.writes.recordLate(item, done);
    if (this.writes.fenced(item, 'attempt')) return;
    await this.carry(lead, done === 'held' ? { kind: 'paused', item } : { kind: 'attempted', item, done });
  }

  private async publishOverflow(item: Item, dueAt: number): Promise<boolean> {
    const { schedule, topics, logger } = this.deps;
    const before = countersOf(item.doc, schedule.maxAttempts);
    logger.info(
      { delivery_id: item.id, endpoint: item.endpoint },
      'partner queue full: the delivery waits on the retry tier',
    );
    const task = { delivery_id: item.id, event: item.event, last_error: 'queue_full', ...kindField(item.kind) };
    return published(
      logger,
      'overflow task',
      () => topics.task(schedule.waitBefore(2).tier, task, { dueAt, attempt: before.attemptsMade + 1 }),
      () => !item.assignment.work.fenced,
    );
  }

  private async afterLine(item: Item, what: string): Promise<boolean> {
    await item.assignment.lineWritten(item.key);
    return !this.writes.fenced(item, what);
  }

  // Its held record may still be on its way to the store (the blocker can end that fast): read it
  // once written, or it would look never written and the line would move on without it.
  private async readTurn(lead: Lead, id: string): Promise<Went> {
    const { a } = lead;
    await a.activeItem(id)?.recorded?.promise;
    const record = await this.writes.read(id);
    if (!a.work.open) return false; // handed over: the next owner reads the lead's block
    return this.run(lead, this.plan(lead, { kind: 'turn-read', id, record }));
  }
}

function countersOf(doc: DeliveryDoc | null, maxAttempts: number): DeliveryCounters {
  return doc
    ? { attemptsMade: doc.attempts_made, attemptsLeft: doc.attempts_left }
    : { attemptsMade: 0, attemptsLeft: maxAttempts };
}

const errText = (err: unknown): string => (err instanceof Error ? err.message : String(err));
