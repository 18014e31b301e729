import type { BatchContext, Decoded, Recording } from '../shared/kafka/batch-consumer';
import type { Lease } from '../shared/kafka/membership-lease';
import { deliveryId } from '../shared/ids';
import { testLabel, type DeliveryDoc } from '../shared/mongo/documents';
import type { PartnerDirectory } from '../shared/partners/partner-directory';
import { untilDone } from '../shared/retriable';
import type { CallbackReply, DeliveryCommand, LeadEvent } from '../shared/schemas';
import type { BlockStore } from './block-store';
import { deliveryKinds } from './callback-eligibility';
import { endpointId, kindField, kindOf, type DeliveryKind } from '../shared/delivery-kind';
import type { Attempted } from './delivery-attempt';
import type { DeliveryCounters } from './retry-policy';
import { HELD_FOR_PAUSED_ENDPOINT, newDeliveryDoc } from './delivery-store';
import { published, replyTo } from './delivery-task';
import { deferred, LeadAssignment, leadKey, type Item } from './lead-assignment';
import type { LinePlan } from './lead-lines';
import type { RecordBatcher } from './record-batcher';
import { LeadWrites, recordOf } from './lead-writes';
import type { RetryConsumerDeps } from './retry-consumer';

// The retry consumer's dependencies, and the few the first attempts need on top.
export interface LeadOwnerDeps extends RetryConsumerDeps {
  partners: PartnerDirectory;
  blocks: BlockStore;
  batcher: RecordBatcher;
  resumeRatePerS: number; // parked leads released per second when their endpoint resumes
  lease: Lease; // the event consumer's lease on its partitions
}

type RetryOutcome = Extract<CallbackReply['outcome'], 'requeued' | 'not_dead' | 'not_found'>;

// A record as JSON carries it (dates as ISO strings), for a reply.
const asJson = (doc: DeliveryDoc): Record<string, unknown> =>
  JSON.parse(JSON.stringify(doc)) as Record<string, unknown>;

// The single writer of the leads of the partitions it owns (leads.events and callbacks.commands,
// co-partitioned): it makes each eligible event a delivery, attempts it through the scheduler and
// writes its record once that first attempt is done, in bulk with others. A lead's deliveries go
// one at a time, in event order (lead-lines.ts); a failed one holds the later ones back until the
// retry consumer reports it ended (a `released` command). Each batch returns at once with a
// promise per record: the consumer commits an offset only once its record is written. Everything
// it keeps belongs to the current assignment (LeadAssignment), handed over at every rebalance.
export class LeadOwner {
  private current: LeadAssignment;
  private readonly writes: LeadWrites;
  private readonly releasing = new Set<string>(); // endpoints whose parked leads are being released

  constructor(private readonly deps: LeadOwnerDeps) {
    this.current = new LeadAssignment(deps.lease);
    this.writes = new LeadWrites(deps);
    deps.gate.onResume((endpoint) => this.release(endpoint));
  }

  blockedLeads(): number {
    return this.current.lines.blockedCount();
  }

  // Deliveries held for paused endpoints, by partner and lead partition (for the health reports).
  heldForPausedEndpoints(): Map<string, Record<string, number>> {
    const { parked, lines } = this.current;
    return parked.counts((key) => lines.blocked(key)?.held.length ?? 0);
  }

  async events(records: Decoded<LeadEvent>[], ctx: BatchContext): Promise<Recording> {
    const { partners, metrics, logger } = this.deps;
    const a = this.current;
    await this.load(a, ctx.partition);
    const wanted: { id: string; event: LeadEvent; kind: DeliveryKind }[][] = [];
    for (const { value: event } of records) {
      const partner = await partners.byId(event.partner_id);
      const kinds = partner ? deliveryKinds(partner, event.event) : [];
      wanted.push(kinds.map((kind) => ({ id: deliveryId(event.event_id, event.partner_id, kind), event, kind })));
      if (kinds.length === 0) {
        metrics.deliveries.inc({
          event: event.event,
          outcome: 'skipped',
          partner_id: event.partner_id,
          test: testLabel(event.test),
        });
        logger.debug(
          {
            event_id: event.event_id,
            partner_id: event.partner_id,
            reason: partner ? 'not_wanted' : 'unknown_partner',
          },
          'no callback or postback for this event',
        );
      }
    }
    const ids = wanted.flat().map((w) => w.id);
    // Under way when the records were looked up: not looked up. One that is no longer under way by
    // the time the answer comes was recorded meanwhile (an item leaves the active set only once
    // recorded), and a replayed event of it must not start it again.
    const underWay = new Set(ids.filter((id) => a.isActive(id)));
    const known = await this.recorded(a, ids);
    return wanted.map((deliveries) => {
      const recorded = deliveries.flatMap(({ id, event, kind }) => {
        if (known.has(id)) return []; // a repeat, or replayed after a crash: never sent again
        const active = a.activeItem(id);
        if (!active && underWay.has(id)) return []; // recorded while the look-up ran
        const item = active ?? this.arrive(a, newItem(a, id, kind, event, ctx.partition, null, deferred()));
        return item.recorded ? [item.recorded.promise] : [];
      });
      return recorded.length <= 1 ? recorded[0] : Promise.all(recorded).then(() => undefined);
    });
  }

  async commands(records: Decoded<DeliveryCommand>[], ctx: BatchContext): Promise<Recording> {
    const a = this.current;
    await this.load(a, ctx.partition);
    const recording: (Promise<void> | undefined)[] = [];
    const replies: CallbackReply[] = [];
    for (const { value: command } of records) {
      const endpoint = endpointId(command.partner_id, command.delivery_kind ?? 'callback');
      const key = leadKey(endpoint, command.lead_id);
      if (command.kind === 'released') {
        this.apply(a, key, ctx.partition, a.lines.released(key, command.delivery_id));
        recording.push(a.lineWritten(key));
      } else if (command.kind === 'parked') {
        // The retry consumer held the lead's blocker: its endpoint is paused.
        this.parkedLead(a, endpoint, key, ctx.partition);
        recording.push(undefined);
      } else {
        const round = await this.freshRound(a, command, ctx.partition);
        recording.push(round.recorded);
        replies.push(
          ...replyTo(command, {
            kind: 'retry',
            outcome: round.outcome,
            ...(round.requeued && { delivery: asJson(round.requeued) }),
          }),
        );
      }
    }
    await this.deps.topics.replies(replies, this.deps.logger);
    return recording;
  }

  // A manager's retry of a dead delivery, or a replay of one that ended (delivered or dead): a fresh
  // round, in its lead's line like any other. A delivery still under way is not replayed: it is
  // going out anyway. This owner alone requeues the record; a command seen again (after a crash)
  // finds its own round and goes on with it.
  private async freshRound(
    a: LeadAssignment,
    command: DeliveryCommand,
    partition: number,
  ): Promise<{ recorded?: Promise<void>; outcome: RetryOutcome; requeued?: DeliveryDoc }> {
    const { store, schedule, logger } = this.deps;
    if (a.isActive(command.delivery_id)) return { outcome: 'not_dead' };
    const from = command.kind === 'replay' ? (['delivered', 'dead'] as const) : (['dead'] as const);
    let doc = await this.writes.read(command.delivery_id);
    // One round per replay job and delivery, however often its command comes (a job resumed by a
    // partition's next owner repeats the commands since its last saved progress).
    if (command.kind === 'replay' && doc?.manual_retries.some((r) => r.by === command.by)) {
      logger.info(
        { delivery_id: command.delivery_id, job_id: command.by },
        'replayed by this job already: nothing to do',
      );
      return { outcome: 'not_dead' };
    }
    if (doc && (from as readonly string[]).includes(doc.state)) {
      doc =
        (await untilDone(
          () =>
            store.requeue(
              command.delivery_id,
              from,
              schedule.maxAttempts,
              command.by ?? 'unknown',
              new Date(command.at),
            ),
          this.writes.retrying('requeue'),
        )) ?? (await this.writes.read(command.delivery_id));
    }
    if (!doc || !isFreshRound(doc, command.at)) {
      logger.info(
        { delivery_id: command.delivery_id, kind: command.kind, state: doc?.state ?? null },
        'no fresh round for a delivery under way: nothing to do',
      );
      return { outcome: doc ? 'not_dead' : 'not_found' };
    }
    const item = this.arrive(a, newItem(a, doc._id, kindOf(doc), doc.event, partition, doc, deferred()));
    return { recorded: item.recorded?.promise, outcome: 'requeued', requeued: doc };
  }

  // A delivery taken under this assignment joins its lead's line.
  private arrive(a: LeadAssignment, item: Item): Item {
    a.activate(item);
    this.apply(a, item.key, item.partition, a.lines.arrive(item.key, item));
    return item;
  }

  // Partitions just assigned: their blocks are read back at once, not with their first batch.
  assigned(partitions: readonly number[]): void {
    const a = this.current;
    for (const partition of partitions) {
      this.load(a, partition).catch((err: unknown) =>
        this.deps.logger.error({ partition, err: (err as Error).message }, 'could not read lead blocks back'),
      );
    }
  }

  // The group is about to rebalance (every partition is revoked), or the dispatcher stops: no new
  // attempt starts, the attempts under way finish and are recorded (while the lease holds; writes of
  // any still running after that are refused), and everything kept for this assignment is dropped.
  async handOver(): Promise<void> {
    const a = this.current;
    this.current = new LeadAssignment(this.deps.lease);
    const closing = a.work.close();
    this.deps.scheduler.dropFenced();
    const started = Date.now();
    const cut = await closing;
    await this.deps.batcher.drain();
    if (cut > 0)
      this.deps.logger.warn(
        { cut },
        'attempts still under way when the lease ran out: their records are refused, the next owner sends them again',
      );
    this.deps.logger.info({ leads: a.lines.size, ms: Date.now() - started }, 'lead partitions handed over');
  }

  private load(a: LeadAssignment, partition: number): Promise<void> {
    return a.loadOnce(partition, () => this.loadBlocks(a, partition));
  }

  private async loadBlocks(a: LeadAssignment, partition: number): Promise<void> {
    a.claimed(
      partition,
      await untilDone(() => this.deps.blocks.claim(partition), this.writes.retrying('claim partition')),
    );
    const blocks = await untilDone(
      () => this.deps.blocks.forPartitions([partition]),
      this.writes.retrying('load blocks'),
    );
    for (const b of blocks) {
      const key = leadKey(b.partner_id, b.lead_id);
      a.lines.load(key, { blocker: b.blocker, held: b.held });
      const blocker = await this.writes.read(b.blocker);
      if (!blocker) continue; // its event is uncommitted and comes again
      if (blocker.state !== 'queued') this.apply(a, key, partition, a.lines.released(key, b.blocker));
      else if (blocker.held_by !== undefined) this.apply(a, key, partition, a.lines.resumeBlocker(key));
      // else it is on the retry path: its end sends `released`
    }
  }

  // Eligible events whose record exists already: a repeat of an event (the processor republishes
  // after its own crashes) or a replay of uncommitted offsets. One read by _id per 100 events.
  private async recorded(a: LeadAssignment, deliveryIds: string[]): Promise<Set<string>> {
    const ids = deliveryIds.filter((id) => !a.isActive(id));
    return ids.length === 0
      ? new Set()
      : untilDone(() => this.deps.store.existing(ids), this.writes.retrying('check recorded'));
  }

  // Carries out what the lead's line decided.
  private apply(a: LeadAssignment, key: string, partition: number, plan: LinePlan<Item>): void {
    if (plan.block !== undefined) this.writes.saveBlock(a, key, partition, plan.block);
    if (plan.hold && plan.hold.length > 0) {
      const blocker = plan.block?.blocker ?? a.lines.blocked(key)?.blocker;
      for (const item of plan.hold) void a.work.track(this.hold(item, blocker as string));
    }
    if (plan.run) this.submit(plan.run);
    if (plan.runHeld) void a.work.track(this.runHeld(a, key, partition, plan.runHeld));
  }

  private async hold(item: Item, blocker: string): Promise<void> {
    const { store, batcher, schedule, metrics } = this.deps;
    const a = item.assignment;
    await a.lineWritten(item.key); // the block lists it before its record says held
    if (this.writes.fenced(item, 'hold')) return;
    if (item.doc) await untilDone(() => store.markHeld(recordOf(item), blocker), this.writes.retrying('hold'));
    else if (
      !(await batcher.add(
        newDeliveryDoc(item.event, schedule.maxAttempts, this.deps.clock.now(), { heldBy: blocker }, item.kind),
        this.writes.fence(item),
      ))
    )
      return;
    metrics.deliveries.inc({
      event: item.event.event,
      outcome: 'held',
      partner_id: item.event.partner_id,
      test: testLabel(item.event.test),
    });
    this.settle(item);
  }

  private async runHeld(a: LeadAssignment, key: string, partition: number, id: string): Promise<void> {
    // Its held record may still be on its way to the store (the blocker can end that fast): read it
    // once written, or it would look never written and the line would move on without it.
    await a.activeItem(id)?.recorded?.promise;
    const doc = await this.writes.read(id);
    if (!a.work.open) return; // handed over: the next owner reads the lead's block
    if (!doc) {
      // Not written yet: its event comes again (lead-lines.ts), or came while this read ran.
      this.apply(a, key, partition, a.lines.recordMissing(key, id));
      return;
    }
    if (doc.state !== 'queued') {
      // Its record ended already (a crash after its attempt).
      this.apply(a, key, partition, a.lines.finished(key, id, 'ended'));
      return;
    }
    const item = newItem(a, id, kindOf(doc), doc.event, partition, doc, null);
    a.activate(item);
    this.submit(item);
  }

  private submit(item: Item): void {
    const { work } = item.assignment;
    // An earlier job of this delivery is still under way (an attempt of an assignment handed over,
    // its retry task being published): this one goes once that has left, never as a second token.
    const earlier = this.deps.scheduler.settled(item.id);
    if (earlier) {
      void work.track(earlier.then(() => (work.open ? this.submit(item) : undefined)));
      return;
    }
    const accepted = this.deps.scheduler.submit({
      deliveryId: item.id,
      partnerId: item.endpoint,
      // Not started before the hand-over: left to the next owner (its offset is uncommitted).
      fenced: () => !work.open,
      run: () => (work.open ? work.track(this.attempt(item)) : Promise.resolve()),
    });
    // Refused while stopping: left unrecorded, its offset uncommitted, for the next start.
    if (!accepted && !this.deps.scheduler.stopping) void work.track(this.overflow(item));
  }

  private async attempt(item: Item): Promise<void> {
    const a = item.assignment;
    if (this.deps.gate.isPaused(item.endpoint)) return this.park(item);
    const done = await this.deps.attempts.attempt(
      item.id,
      item.kind,
      item.event,
      countersOf(item.doc, this.deps.schedule.maxAttempts),
    );
    if (this.writes.fenced(item, 'attempt')) return;
    // The line moves before the retry task exists: the task's `released` must find this delivery as
    // the lead's blocker, however soon it comes.
    const plan = a.lines.finished(item.key, item.id, done.decision.state === 'queued' ? 'retrying' : 'ended');
    const carried = this.deps.attempts.carryOn(item.id, item.kind, item.event, done, () => !a.work.fenced);
    // A held delivery's event is committed already: no replay brings it back after a crash. So its
    // record (after its task) is written before any later block of its lead, which may leave it out:
    // a crash in between would strand it queued and held, in no block.
    if (!item.recorded)
      this.writes.inTurn(a, item.key, async () => {
        await carried;
        if (!this.writes.fenced(item, 'record')) await this.writes.recordAttempt(item, done);
      });
    // Saved in the order decided (a release may change the block again right after).
    if (plan.block !== undefined) this.writes.saveBlock(a, item.key, item.partition, plan.block);
    await carried;
    // The record is written outside the partner's slot: the slots cap requests to the partner, and
    // a slot held for the bulk write would leave the next callback waiting on the database.
    void a.work.track(
      this.finish(item, done, plan).catch((err: unknown) =>
        this.deps.logger.error(
          { delivery_id: item.id, err: (err as Error).message },
          'could not record a delivery attempt; its offset stays uncommitted',
        ),
      ),
    );
  }

  // The partner's queue is full (it is slow, or down): the delivery waits on the first retry tier
  // instead of in memory, without an attempt, and holds its lead's later events back like a failure.
  private async overflow(item: Item): Promise<void> {
    const { schedule, topics, logger } = this.deps;
    const before = countersOf(item.doc, schedule.maxAttempts);
    const wait = schedule.waitBefore(2);
    const dueAt = this.deps.clock.now().getTime() + wait.delayMs;
    logger.info(
      { delivery_id: item.id, endpoint: item.endpoint },
      'partner queue full: the delivery waits on the retry tier',
    );
    const task = { delivery_id: item.id, event: item.event, last_error: 'queue_full', ...kindField(item.kind) };
    if (
      !(await published(
        logger,
        'overflow task',
        () => topics.task(wait.tier, task, { dueAt, attempt: before.attemptsMade + 1 }),
        () => !item.assignment.work.fenced,
      ))
    )
      return;
    await this.setAside(item, { dueAt: new Date(dueAt) });
  }

  // The partner's endpoint is paused: the delivery is held, not attempted and not dead. It blocks its
  // lead's later ones like a failure, and goes first when the endpoint resumes.
  private async park(item: Item): Promise<void> {
    await this.setAside(item, { heldBy: HELD_FOR_PAUSED_ENDPOINT });
    this.deps.metrics.deliveries.inc({ event: item.event.event, outcome: 'held', partner_id: item.event.partner_id });
    this.parkedLead(item.assignment, item.endpoint, item.key, item.partition);
  }

  // A delivery that is not attempted now becomes its lead's blocker: recorded (as waiting on a retry
  // tier, or held), after the lead's block.
  private async setAside(item: Item, how: { dueAt: Date } | { heldBy: string }): Promise<void> {
    const { store, batcher, schedule } = this.deps;
    const a = item.assignment;
    const plan = a.lines.finished(item.key, item.id, 'retrying');
    if (plan.block !== undefined) this.writes.saveBlock(a, item.key, item.partition, plan.block);
    await a.lineWritten(item.key);
    if (this.writes.fenced(item, 'set aside')) return;
    if (!item.doc) {
      if (
        !(await batcher.add(
          newDeliveryDoc(item.event, schedule.maxAttempts, this.deps.clock.now(), how, item.kind),
          this.writes.fence(item),
        ))
      )
        return;
    } else if ('dueAt' in how)
      await untilDone(() => store.awaitRetry(recordOf(item), how.dueAt), this.writes.retrying('overflow'));
    else if (item.doc.held_by !== how.heldBy)
      await untilDone(() => store.markHeld(recordOf(item), how.heldBy), this.writes.retrying('park'));
    this.settle(item);
    this.apply(a, item.key, item.partition, { ...plan, block: undefined });
  }

  private parkedLead(a: LeadAssignment, endpoint: string, key: string, partition: number): void {
    a.parked.add(endpoint, key, partition);
    if (!this.deps.gate.isPaused(endpoint)) this.release(endpoint); // resumed meanwhile
  }

  // The endpoint resumed: its parked leads go again, longest-held first, at ENDPOINT_RESUME_RATE_PER_S;
  // each lead's held deliveries then follow in event order. Stops if the endpoint is paused again,
  // or at a hand-over (the next assignment reads the parked leads back from their blocks).
  private release(endpoint: string): void {
    if (this.releasing.has(endpoint)) return;
    this.releasing.add(endpoint);
    const a = this.current;
    const gapMs = 1000 / this.deps.resumeRatePerS;
    void (async () => {
      while (!this.deps.gate.isPaused(endpoint) && a.work.open) {
        const next = a.parked.take(endpoint);
        if (!next) break;
        this.apply(a, next.key, next.partition, a.lines.resumeBlocker(next.key));
        await new Promise((r) => setTimeout(r, gapMs).unref());
      }
    })().finally(() => this.releasing.delete(endpoint));
  }

  // The first attempt of a round is done: the lead's line moves on, the record is written.
  private async finish(item: Item, done: Attempted, plan: LinePlan<Item>): Promise<void> {
    const { batcher, schedule } = this.deps;
    const a = item.assignment;
    // The block and the task before the record: a crash in between replays the event, attempted again
    // (a held delivery's record is written in its lead's turn, in attempt()).
    await a.lineWritten(item.key);
    if (this.writes.fenced(item, 'record')) return;
    if (!item.doc) {
      if (
        !(await batcher.add(
          newDeliveryDoc(item.event, schedule.maxAttempts, this.deps.clock.now(), done, item.kind),
          this.writes.fence(item),
        ))
      )
        return;
    } else if (item.recorded) await this.writes.recordAttempt(item, done);
    this.settle(item);
    this.apply(a, item.key, item.partition, { ...plan, block: undefined });
  }

  private settle(item: Item): void {
    item.assignment.settle(item);
  }
}

function newItem(
  a: LeadAssignment,
  id: string,
  kind: DeliveryKind,
  event: LeadEvent,
  partition: number,
  doc: DeliveryDoc | null,
  recorded: Item['recorded'],
): Item {
  const endpoint = endpointId(event.partner_id, kind);
  return { id, kind, endpoint, key: leadKey(endpoint, event.lead_id), partition, event, doc, recorded, assignment: a };
}

function countersOf(doc: DeliveryDoc | null, maxAttempts: number): DeliveryCounters {
  return doc
    ? { attemptsMade: doc.attempts_made, attemptsLeft: doc.attempts_left }
    : { attemptsMade: 0, attemptsLeft: maxAttempts };
}

// A record the manager's API requeued itself for this command, whose round has not started.
function isFreshRound(doc: DeliveryDoc, commandAt: string): boolean {
  const last = doc.manual_retries[doc.manual_retries.length - 1];
  return (
    doc.state === 'queued' &&
    doc.attempts_made === 0 &&
    doc.held_by === undefined &&
    last?.at.getTime() === Date.parse(commandAt)
  );
}
