import type { BatchContext, Decoded, Recording } from '../../shared/kafka/batch-consumer';
import type { Lease } from '../../shared/kafka/membership-lease';
import type { DeliveryDoc } from '../../shared/mongo/delivery-doc';
import type { PartnerDirectory } from '../../shared/partners/partner-directory';
import { untilDone } from '../../shared/retriable';
import type { CallbackReply, DeliveryCommand, DeliveryTask, LeadEvent } from '../../shared/schemas';
import { endpointId, kindOf } from '../../shared/delivery-kind';
import { published, replyTo, taskKey } from '../delivery-topics';
import { readTaskHeaders } from '../delivery-task';
import { RetryTurns, type RetryEnd, type TaskSource } from './retry-turns';
import { deferred, OwnedPartitions, leadKey, newItem, type Item } from './owned-partitions';
import { LeadWrites } from './lead-writes';
import { CarryOut, leadOf, type CarryOutDeps } from './carry-out';
import { ParkedRelease } from './parked-release';
import { arrival, eventDeliveries, isFreshRound, replayedAlready, roundFrom, type Wanted } from './rounds';
import { BacklogReplay, type LookedUp, type Reader } from './backlog-replay';
import { PartitionReadBack, type ReadBackDeps } from './read-back';

// What the attempts need, and the few the lead's line needs on top.
export interface LeadOwnerDeps extends CarryOutDeps, ReadBackDeps {
  partners: PartnerDirectory;
  lease: Lease; // the event consumer's lease on its partitions
}

type RetryOutcome = Extract<CallbackReply['outcome'], 'requeued' | 'not_dead' | 'not_found'>;

// A record as JSON carries it (dates as ISO strings), for a reply.
const asJson = (doc: DeliveryDoc): Record<string, unknown> =>
  JSON.parse(JSON.stringify(doc)) as Record<string, unknown>;

// The single writer of the leads of the partitions it owns (leads.events and callbacks.commands,
// and the retry tiers, co-partitioned): it makes each eligible event a delivery, attempts it through
// the scheduler and writes its record once that first attempt is done, in bulk with others. A
// lead's deliveries go one at a time, in event order (lead-lines.ts); a failed one holds the later
// ones back until its retries end it (retry-turns.ts: a due task is this owner's input too, so
// one writer keeps a delivery's record from first attempt to end). Each batch returns at once with a
// promise per record: the consumer commits an offset only once its record is written. Everything
// it keeps belongs to the current assignment (OwnedPartitions), handed over at every rebalance.
// What each input does to a lead's line is decided by lead-lines.ts and carried out by carry-out.ts; this shell
// reads the facts (partners, records, blocks) and turns batches and commands into inputs. An
// endpoint that cannot take its deliveries has them set aside in a backlog (backlog-replay.ts).
export class LeadOwner {
  private current: OwnedPartitions;
  private readonly writes: LeadWrites;
  private readonly carryOut: CarryOut;
  private readonly parked: ParkedRelease;
  private readonly retryTurns: RetryTurns;
  private readonly readBack: PartitionReadBack;
  readonly replay: BacklogReplay;

  constructor(private readonly deps: LeadOwnerDeps) {
    this.current = new OwnedPartitions(deps.lease);
    this.writes = new LeadWrites(deps);
    this.carryOut = new CarryOut(deps, (lead) => this.parked.park(lead));
    this.parked = new ParkedRelease(deps, this.carryOut, () => this.current);
    this.retryTurns = new RetryTurns(deps, (a, doc, end, from) => this.retryEnded(a, doc, end, from));
    this.replay = new BacklogReplay(
      {
        current: () => this.current,
        deliveries: (events) => this.deliveries(events, false),
        lookUp: (a, ids) => this.lookUp(a, ids),
        arrive: (a, w, partition, facts) => this.arrive(a, w, partition, facts),
      },
      deps,
    );
    this.readBack = new PartitionReadBack(deps, this.writes, this.carryOut, this.replay);
    deps.hold.onRelease((endpoint) => {
      this.parked.release(endpoint);
      this.replay.released(endpoint);
    });
  }

  // The reader of backlogs (partition-reader.ts), started by the dispatcher beside its consumers.
  attachReader(reader: Reader): void {
    this.replay.attach(reader);
  }

  private deliveries(events: LeadEvent[], count: boolean): Promise<Wanted[][]> {
    return eventDeliveries(this.deps, events, count);
  }

  blockedLeads(): number {
    return this.current.lines.blockedCount();
  }

  endpointBacklogs(): number {
    return this.current.backlogs.size;
  }

  // Deliveries held for paused endpoints, by partner and lead partition (for the health reports).
  heldForPausedEndpoints(): Map<string, Record<string, number>> {
    const { parked, lines } = this.current;
    return parked.counts((key) => lines.blocked(key)?.held.length ?? 0);
  }

  async events(records: Decoded<LeadEvent>[], ctx: BatchContext): Promise<Recording> {
    const a = this.current;
    const { partition } = ctx;
    await this.readBack.load(a, partition);
    const wanted = await this.deliveries(
      records.map((r) => r.value),
      true,
    );
    // An endpoint that cannot take its deliveries now has them set aside in its backlog.
    const offsets = records.map((r) => Number(r.message.offset));
    const { handled, aside } = this.replay.intakeBatch(a, partition, offsets, wanted);
    const facts = await this.lookUp(
      a,
      handled.flat().map((w) => w.id),
    );
    const recording = handled.map((ws, i) => {
      const waits = [...ws.map((w) => this.arrive(a, w, partition, facts)), aside[i]].filter((r) => r !== undefined);
      return waits.length <= 1 ? waits[0] : Promise.all(waits).then(() => undefined);
    });
    this.replay.opened(a, partition);
    return recording;
  }

  // What is recorded already of these deliveries, and what is under way (rounds.ts, arrival).
  async lookUp(a: OwnedPartitions, ids: string[]): Promise<LookedUp> {
    // Under way when the records were looked up: not looked up.
    const underWay = new Set(ids.filter((id) => a.isActive(id)));
    return { known: await this.recorded(a, ids), underWay };
  }

  // An event's delivery joins its lead's line, unless it is recorded or under way already; the
  // promise its offset waits for, if any.
  arrive(a: OwnedPartitions, w: Wanted, partition: number, facts: LookedUp): Promise<void> | undefined {
    const active = a.activeItem(w.id);
    const verdict = arrival({
      recorded: facts.known.has(w.id),
      active: active !== undefined,
      wasActive: facts.underWay.has(w.id),
    });
    if (verdict === 'skip') return undefined;
    const item = active ?? this.join(newItem(a, w.id, w.kind, w.event, partition, null, deferred()));
    return item.recorded?.promise;
  }

  async commands(records: Decoded<DeliveryCommand>[], ctx: BatchContext): Promise<Recording> {
    const a = this.current;
    await this.readBack.load(a, ctx.partition);
    const recording: (Promise<void> | undefined)[] = [];
    const replies: CallbackReply[] = [];
    for (const { value: command } of records) {
      const endpoint = endpointId(command.partner_id, command.delivery_kind ?? 'callback');
      const lead = { a, key: leadKey(endpoint, command.lead_id), endpoint, partition: ctx.partition };
      if (command.kind === 'released') {
        this.carryOut.released(lead, command.delivery_id);
        recording.push(a.lineWritten(lead.key));
      } else if (command.kind === 'parked') {
        this.carryOut.parked(lead);
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

  // Due tasks of the retry tiers (partition p of each tier is read with partition p of leads.events).
  async retries(records: Decoded<DeliveryTask>[], ctx: BatchContext): Promise<Recording> {
    const a = this.current;
    const { partition, topic } = ctx;
    await this.readBack.load(a, partition);
    return records.map(({ value: task, message }) => {
      const timing = readTaskHeaders(message.headers);
      if (!timing) {
        this.deps.metrics.undecodable.inc({ topic });
        this.deps.logger.error(
          { topic, partition, offset: message.offset },
          'skipped a retry task without due-time headers',
        );
        return undefined;
      }
      const atLead = message.key?.toString() === taskKey(topic, task); // not an older task's key
      return this.retryTurns.run(a, { task, timing, tier: topic, from: { partition, atLead } });
    });
  }

  // A delivery on the retry path ended, or its endpoint holds it: its lead's line learns it here
  // when the task was read from the lead's partition, and by a command to the lead's owner when not
  // (a task published before the tiers were keyed by lead).
  private async retryEnded(a: OwnedPartitions, doc: DeliveryDoc, end: RetryEnd, from: TaskSource): Promise<void> {
    const endpoint = endpointId(doc.partner_id, kindOf(doc));
    if (from.atLead) {
      const lead = { a, key: leadKey(endpoint, doc.lead_id), endpoint, partition: from.partition };
      if (end === 'released') this.carryOut.released(lead, doc._id);
      else this.carryOut.parked(lead);
      return;
    }
    await published(this.deps.logger, end, () =>
      this.deps.topics.command({
        kind: end,
        delivery_id: doc._id,
        lead_id: doc.lead_id,
        partner_id: doc.partner_id,
        at: this.deps.clock.now().toISOString(),
        ...(doc.kind && { delivery_kind: doc.kind }),
      }),
    );
  }

  // A manager's retry of a dead delivery, or a replay of one that ended (delivered or dead): a fresh
  // round, in its lead's line like any other. A delivery still under way is not replayed: it is
  // going out anyway. This owner alone requeues the record; a command seen again (after a crash)
  // finds its own round and goes on with it.
  private async freshRound(
    a: OwnedPartitions,
    command: DeliveryCommand,
    partition: number,
  ): Promise<{ recorded?: Promise<void>; outcome: RetryOutcome; requeued?: DeliveryDoc }> {
    const { logger } = this.deps;
    if (a.isActive(command.delivery_id)) return { outcome: 'not_dead' };
    const from = roundFrom(command);
    let doc = await this.writes.read(command.delivery_id);
    if (replayedAlready(doc, command)) {
      logger.info(
        { delivery_id: command.delivery_id, job_id: command.by },
        'replayed by this job already: nothing to do',
      );
      return { outcome: 'not_dead' };
    }
    if (doc && from.includes(doc.state)) {
      doc =
        (await this.writes.requeue(command.delivery_id, from, command.by ?? 'unknown', new Date(command.at))) ??
        (await this.writes.read(command.delivery_id));
    }
    if (!doc || !isFreshRound(doc, command.at)) {
      logger.info(
        { delivery_id: command.delivery_id, kind: command.kind, state: doc?.state ?? null },
        'no fresh round for a delivery under way: nothing to do',
      );
      return { outcome: doc ? 'not_dead' : 'not_found' };
    }
    const item = this.join(newItem(a, doc._id, kindOf(doc), doc.event, partition, doc, deferred()));
    return { recorded: item.recorded?.promise, outcome: 'requeued', requeued: doc };
  }

  // A delivery taken under this assignment joins its lead's line.
  private join(item: Item): Item {
    item.assignment.activate(item);
    this.carryOut.arrive(leadOf(item), item);
    return item;
  }

  // Partitions just assigned: their blocks are read back at once, not with their first batch.
  assigned(partitions: readonly number[]): void {
    const a = this.current;
    for (const partition of partitions) {
      this.readBack
        .load(a, partition)
        .catch((err: unknown) =>
          this.deps.logger.error({ partition, err: (err as Error).message }, 'could not read lead blocks back'),
        );
    }
  }

  // The group is about to rebalance (every partition is revoked), or the dispatcher stops: no new
  // attempt starts, the attempts under way finish and are recorded (while the lease holds; writes of
  // any still running after that are refused), and everything kept for this assignment is dropped.
  async handOver(): Promise<void> {
    const a = this.current;
    this.current = new OwnedPartitions(this.deps.lease);
    this.replay.handOver();
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

  // Eligible events whose record exists already: a repeat of an event (the processor republishes
  // after its own crashes) or a replay of uncommitted offsets. One read by _id per 100 events.
  private async recorded(a: OwnedPartitions, deliveryIds: string[]): Promise<Set<string>> {
    const ids = deliveryIds.filter((id) => !a.isActive(id));
    return ids.length === 0
      ? new Set()
      : untilDone(() => this.deps.store.existing(ids), this.writes.retrying('check recorded'));
  }
}
