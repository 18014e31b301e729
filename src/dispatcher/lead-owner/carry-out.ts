import { kindField, kindOf } from '../../shared/delivery-kind';
import { HELD_FOR_PAUSED_ENDPOINT, type DeliveryDoc } from '../../shared/mongo/delivery-doc';
import { testLabel } from '../../shared/mongo/documents';
import type { BlockStore } from './block-store';
import type { Attempted } from '../delivery-attempt';
import { published } from '../delivery-topics';
import { newItem, type Item, type OwnedPartitions } from './owned-partitions';
import {
  LeadWrites,
  recordedLate,
  setAsideWrite,
  type RecordBatcher,
  type RecordWrite,
  type SetAside,
} from './lead-writes';
import type { RetryDeps } from './retry-turns';
import type { DeliveryCounters } from '../retry-policy';
import { blockerInput, turnInput, transition, type LineInput, type LinePlan, type LineStep } from './lead-lines';

export interface CarryOutDeps extends RetryDeps {
  blocks: BlockStore;
  batcher: RecordBatcher;
}

// A lead's line under one assignment.
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

// The one writer of a lead's line: each input moves the line (lead-lines.ts, pure) and is then
// carried out as one async turn with plain awaits, its writes behind the fences they pass
// (lead-writes.ts). A turn runs synchronously up to its first wait, so a caller reads the lead's
// writes right after an input; every turn, and every piece a turn starts alongside it, is tracked by
// the lead's assignment (its hand-over waits for it) and a failure is logged.
export class CarryOut {
  private readonly writes: LeadWrites;

  constructor(
    private readonly deps: CarryOutDeps,
    private readonly parkLead: (lead: Lead) => void,
  ) {
    this.writes = new LeadWrites(deps);
  }

  // An event's delivery, or a fresh round, joins its lead's line.
  arrive(lead: Lead, item: Item): void {
    this.turn(lead, this.move(lead, { kind: 'arrive', item }));
  }

  // The lead's blocker ended on the retry path.
  released(lead: Lead, blocker: string): void {
    this.turn(lead, this.move(lead, { kind: 'released', blocker }));
  }

  // The retry path held the lead's blocker: its endpoint is paused.
  parked(lead: Lead): void {
    this.parkLead(lead);
  }

  // A block read back (lead-lines.ts's `load`), with its blocker's record.
  blockerRead(lead: Lead, blocker: string, record: DeliveryDoc | null): void {
    const input = blockerInput(blocker, record);
    if (input === 'park') this.parkLead(lead);
    else if (input) this.turn(lead, this.move(lead, input));
  }

  // The held blocker goes (its endpoint resumed): resolves once it reached the scheduler, so the
  // endpoint's paced release waits for it.
  async resume(lead: Lead): Promise<void> {
    const { plan } = this.move(lead, { kind: 'resume' });
    if (plan.runHeld) await this.readTurn(lead, plan.runHeld);
  }

  // Work that goes on after its caller: the hand-over waits for it, and a failure is logged.
  start(a: OwnedPartitions, work: Promise<unknown>, context: Record<string, unknown>, failure: string): void {
    a.work.track(
      work.then(undefined, (err: unknown) => this.deps.logger.error({ ...context, err: errText(err) }, failure)),
    );
  }

  private turn(lead: Lead, step: LineStep<Item>): void {
    this.fork(lead, this.follow(lead, step), "could not carry out a lead's turn");
  }

  private fork(lead: Lead, work: Promise<unknown>, failure: string): void {
    this.start(lead.a, work, { key: lead.key }, failure);
  }

  // The input decided over the lead's line, the line it leaves kept at once (the next input, come
  // before this one's turn is done, finds it).
  private move(lead: Lead, input: LineInput<Item>): LineStep<Item> {
    return lead.a.lines.update(lead.key, (line) => transition(line, input));
  }

  // What the line decided, in this order: its block, the ones it holds, the one it runs.
  private async follow(lead: Lead, { line, plan }: LineStep<Item>): Promise<void> {
    this.saveBlock(lead, plan);
    if (plan.hold && plan.hold.length > 0) {
      const blocker = (line?.state === 'blocked' ? line.blocker : plan.block?.blocker) as string;
      for (const item of plan.hold) this.fork(lead, this.hold(item, blocker), 'could not hold a delivery');
    }
    if (plan.run) await this.send(lead, plan.run);
    if (plan.runHeld) this.fork(lead, this.readTurn(lead, plan.runHeld), "could not read a held delivery's turn");
  }

  // Saved in the order decided, in the lead's turn of writes.
  private saveBlock({ a, key, partition }: Lead, plan: LinePlan<Item>): void {
    if (plan.block !== undefined) this.writes.saveBlock(a, key, partition, plan.block);
  }

  // Held behind the blocker: its record says so once the block that lists it is written.
  private async hold(item: Item, blocker: string): Promise<void> {
    if (!(await this.afterLine(item, 'hold'))) return;
    const write: RecordWrite = item.doc ? { hold: blocker } : { insert: { heldBy: blocker } };
    if (!(await this.writes.write(item, write))) return;
    this.count(item, 'held');
    item.assignment.settle(item);
  }

  private async send(lead: Lead, item: Item): Promise<void> {
    const { scheduler } = this.deps;
    // An earlier job of it is still under way (an attempt of an assignment handed over, its retry
    // task being published): this one goes once that has left, never as a second token.
    if (scheduler.isPending(item.id)) {
      const after = async () => {
        await scheduler.settled(item.id);
        if (lead.a.work.open) await this.send(lead, item);
      };
      this.fork(lead, after(), 'could not send a delivery');
      return;
    }
    const { hold, schedule, clock } = this.deps;
    const { work } = lead.a;
    // Held (paused, or its circuit open): set aside at once, without a slot of the partner's.
    if (hold.holds(item.endpoint)) return this.paused(lead, item);
    const accepted = scheduler.submit({
      deliveryId: item.id,
      partnerId: item.endpoint,
      // Not started before the hand-over: left to the next owner (its offset is uncommitted).
      fenced: () => !work.open,
      run: () => (work.open ? work.track(this.attempt(lead, item)) : Promise.resolve()),
    });
    // Refused while stopping: left unrecorded, its offset uncommitted, for the next start. Else the
    // partner's queue is full: it waits on the first retry tier instead of in memory, unattempted.
    if (accepted || scheduler.stopping) return;
    const dueAt = clock.now().getTime() + schedule.waitBefore(2).delayMs;
    this.fork(lead, this.overflow(lead, item, dueAt), 'could not set a delivery aside');
  }

  // The first attempt of a round (or a held one's, in its turn), in a slot of the partner's.
  private async attempt(lead: Lead, item: Item): Promise<void> {
    const permit = this.deps.hold.mayAttempt(item.endpoint);
    if (!permit) return this.paused(lead, item);
    const before = countersOf(item.doc, this.deps.schedule.maxAttempts);
    const { work } = lead.a;
    const done = await this.deps.attempts.attempt(item.id, item.kind, item.event, before, () => !work.fenced, permit);
    // Withheld only once fenced (its offset stays uncommitted: the next owner sends it).
    if (done === null) return;
    if (work.fenced && recordedLate(done)) return this.writes.recordLate(item, done);
    if (this.writes.fenced(item, 'attempt')) return;
    if (done === 'held') return this.paused(lead, item);
    await this.attempted(lead, item, done);
  }

  // The line moves before the retry task exists: the task's `released` must find this delivery as
  // the lead's blocker, however soon it comes. The block and the task go before the record: a crash
  // in between replays the event, attempted again.
  private async attempted(lead: Lead, item: Item, done: Attempted): Promise<void> {
    const { a, key } = lead;
    const outcome = done.decision.state === 'queued' ? 'retrying' : 'ended';
    const after = this.move(lead, { kind: 'finished', id: item.id, outcome });
    const sent = this.deps.attempts.carryOn(item.id, item.kind, item.event, done, () => !a.work.fenced);
    // A held delivery's event is committed already: no replay brings it back after a crash. So its
    // record (after its task) is written before any later block of its lead, which may leave it out.
    const heldTurn = item.recorded === null;
    if (heldTurn)
      this.writes.inTurn(a, key, async () => {
        await sent;
        if (!this.writes.fenced(item, 'held record')) await this.writes.recordAttempt(item, done);
      });
    this.saveBlock(lead, after.plan);
    await sent;
    // The record is written outside the partner's slot: the slots cap requests to the partner, and
    // a slot held for the bulk write would leave the next callback waiting on the database.
    const write: RecordWrite | null = item.doc === null ? { insert: done } : heldTurn ? null : { attempt: done };
    this.start(
      a,
      this.recorded(lead, item, 'record', write, after.plan),
      { delivery_id: item.id },
      'could not record a delivery attempt; its offset stays uncommitted',
    );
  }

  // Held, not attempted and not dead; it goes first when the endpoint resumes.
  private async paused(lead: Lead, item: Item): Promise<void> {
    await this.setAside(lead, item, { heldBy: HELD_FOR_PAUSED_ENDPOINT });
    this.count(item, 'parked');
    this.parkLead(lead);
  }

  // The partner's queue was full: its first tier's task, then it is set aside until due.
  private async overflow(lead: Lead, item: Item, dueAt: number): Promise<void> {
    const { schedule, topics, logger } = this.deps;
    const before = countersOf(item.doc, schedule.maxAttempts);
    logger.info(
      { delivery_id: item.id, endpoint: item.endpoint },
      'partner queue full: the delivery waits on the retry tier',
    );
    const task = { delivery_id: item.id, event: item.event, last_error: 'queue_full', ...kindField(item.kind) };
    const out = await published(
      logger,
      'overflow task',
      () => topics.task(schedule.waitBefore(2).tier, task, { dueAt, attempt: before.attemptsMade + 1 }),
      () => !lead.a.work.fenced,
    );
    if (out) await this.setAside(lead, item, { dueAt: new Date(dueAt) });
  }

  // Not attempted now: it becomes its lead's blocker, recorded (as waiting on a retry tier, or
  // held) after the lead's block.
  private async setAside(lead: Lead, item: Item, how: SetAside): Promise<void> {
    const after = this.move(lead, { kind: 'finished', id: item.id, outcome: 'retrying' });
    this.saveBlock(lead, after.plan);
    await this.recorded(lead, item, 'set aside', setAsideWrite(item.doc, how), after.plan);
  }

  // Its record written once the lead's writes decided before it are done (none: it says so already),
  // its offset may move, and what its line decided meanwhile goes on. A write refused (fenced) stops it.
  private async recorded(
    lead: Lead,
    item: Item,
    what: string,
    write: RecordWrite | null,
    plan: LinePlan<Item>,
  ): Promise<void> {
    if (!(await this.afterLine(item, what))) return;
    if (write && !(await this.writes.write(item, write))) return;
    item.assignment.settle(item);
    await this.follow(lead, { line: lead.a.lines.get(lead.key), plan: { ...plan, block: undefined } });
  }

  // Once the lead's writes decided so far are done; false: fenced meanwhile.
  private async afterLine(item: Item, what: string): Promise<boolean> {
    await item.assignment.lineWritten(item.key);
    return !this.writes.fenced(item, what);
  }

  // A held one's turn. Its held record may still be on its way to the store (the blocker can end
  // that fast): read once written, or it would look never written and the line would move on without it.
  private async readTurn(lead: Lead, id: string): Promise<void> {
    const { a, partition } = lead;
    await a.activeItem(id)?.recorded?.promise;
    const record = await this.writes.read(id);
    if (!a.work.open) return; // handed over: the next owner reads the lead's block
    const input = turnInput(id, record);
    if (!('send' in input)) return this.follow(lead, this.move(lead, input));
    const { send } = input; // its record is the delivery
    const item = newItem(a, id, kindOf(send), send.event, partition, send, null);
    a.activate(item);
    await this.send(lead, item);
  }

  private count(item: Item, outcome: 'held' | 'parked'): void {
    const { event } = item;
    this.deps.metrics.deliveries.inc({
      event: event.event,
      outcome: 'held',
      partner_id: event.partner_id,
      ...(outcome === 'held' && { test: testLabel(event.test) }),
    });
  }
}

function countersOf(doc: DeliveryDoc | null, maxAttempts: number): DeliveryCounters {
  return doc
    ? { attemptsMade: doc.attempts_made, attemptsLeft: doc.attempts_left }
    : { attemptsMade: 0, attemptsLeft: maxAttempts };
}

const errText = (err: unknown): string => (err instanceof Error ? err.message : String(err));
