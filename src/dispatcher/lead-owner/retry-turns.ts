import { RETRY_TIERS, type TopicKey } from '../../shared/kafka/topics';
import type { Logger } from '../../shared/logger';
import { HELD_FOR_PAUSED_ENDPOINT, type DeliveryDoc, type QueuedDelivery } from '../../shared/mongo/delivery-doc';
import type { DeliveryTask } from '../../shared/schemas';
import type { Clock } from '../../shared/clock';
import { endpointId, kindOf } from '../../shared/delivery-kind';
import type { DeliveryAttempts } from '../delivery-attempt';
import type { DeliveryScheduler } from '../delivery-scheduler';
import type { DeliveryStore } from '../delivery-store';
import type { EndpointHold } from '../endpoint-hold';
import type { TaskTiming } from '../delivery-task';
import { published, type DeliveryTopics } from '../delivery-topics';
import { readRecord, recordFor } from '../task-record';
import type { DispatcherMetrics } from '../metrics';
import type { RetrySchedule } from '../retry-policy';
import type { OwnedPartitions } from './owned-partitions';
import { holdRecord, recordAttempt } from './lead-writes';

// What a delivery's attempts need, first or retried.
export interface RetryDeps {
  hold: EndpointHold;
  store: DeliveryStore;
  scheduler: DeliveryScheduler;
  attempts: DeliveryAttempts;
  topics: DeliveryTopics;
  schedule: RetrySchedule;
  metrics: DispatcherMetrics;
  logger: Logger;
  clock: Clock;
}

// A due task, as read from its tier.
export interface DueTask {
  task: DeliveryTask;
  timing: TaskTiming;
  tier: TopicKey;
  from: TaskSource;
}

// Where a task was read: its partition, and whether that is its lead's (keyed by lead id, as every
// task is now; false for one keyed by delivery id, published before the tiers were co-partitioned).
export interface TaskSource {
  partition: number;
  atLead: boolean;
}

// How a retry's end reaches its lead's line: the delivery ended (delivered or dead), or its endpoint
// holds it (parked).
export type RetryEnd = 'released' | 'parked';
export type ToLine = (a: OwnedPartitions, doc: DeliveryDoc, end: RetryEnd, from: TaskSource) => Promise<void>;

// A due task on a retry tier is an input of its lead's owner: the tiers are keyed by lead id and
// read with leads.events in the one co-partitioned group, so the owner of a lead's line is the
// holder of its retries. A task is the token of its delivery: its holder reads the record,
// attempts, hands the token on (next tier) before updating the record by _id, and tells the
// lead's line when the delivery ended. One task of a delivery runs at a time; all of it is tracked
// by the assignment (its hand-over waits for it, and no attempt starts or is recorded once it is
// fenced).
export class RetryTurns {
  constructor(
    private readonly deps: RetryDeps,
    private readonly toLine: ToLine,
  ) {}

  run(a: OwnedPartitions, due: DueTask): Promise<void> {
    const { work, retryChains: chains } = a;
    const id = due.task.delivery_id;
    const endpoint = endpointId(due.task.event.partner_id, kindOf(due.task));
    // Let go once submitted: what this closure keeps while the task waits for room is its id and timing.
    let toDefer: DueTask | null = due;
    const next = (chains.get(id) ?? Promise.resolve())
      .then(() => waitUntil(due.timing.dueAt))
      .then(() => recordFor(this.deps, id, due.timing, () => !work.open))
      .then(
        () =>
          new Promise<void>((resolve) => {
            if (!work.open) return; // handed over: uncommitted, the next owner runs it
            if (this.submit(a, { id, endpoint, timing: due.timing, from: due.from }, resolve)) toDefer = null;
            else void work.track(this.defer(toDefer as DueTask)).then(resolve);
          }),
      );
    chains.set(id, next);
    void next.then(() => {
      if (chains.get(id) === next) chains.delete(id);
    });
    return next;
  }

  // Beyond the partner's queue a due task waits for room there: the tier partition's uncommitted
  // tasks bound how many do, and a backlog drains at the partner's pace. Made apart from the task,
  // so that a waiting one holds neither the decoded task nor its record: the record is read again
  // (with others, DeliveryStore.get) when its turn comes.
  private submit(
    a: OwnedPartitions,
    due: { id: string; endpoint: string; timing: TaskTiming; from: TaskSource },
    done: () => void,
  ): boolean {
    const { work } = a;
    const attempt = async () => this.attempt(a, await readRecord(this.deps, due.id), due);
    return this.deps.scheduler.submitWhenRoom({
      deliveryId: due.id,
      partnerId: due.endpoint,
      fenced: () => !work.open,
      run: () => (work.open ? work.track(attempt()).then(done) : Promise.resolve()),
    });
  }

  private async attempt(
    a: OwnedPartitions,
    doc: DeliveryDoc | null,
    due: { timing: TaskTiming; from: TaskSource },
  ): Promise<void> {
    const { attempts, metrics, logger, clock } = this.deps;
    const { work } = a;
    const { timing } = due;
    const line = (d: DeliveryDoc, end: RetryEnd) => this.toLine(a, d, end, due.from);
    if (!doc || doc.state !== 'queued' || doc.attempts_made !== timing.attempt - 1) {
      // A task whose record ended: its own attempt recorded already (a crash after the record, before
      // this offset was committed), or another owner's record won (an owner that lost its partitions
      // without knowing recorded the same delivery first). Its lead's line may wait for this end
      // either way; an end the line no longer waits for is ignored.
      if (doc && doc.state !== 'queued') await line(doc, 'released');
      else logger.debug({ attempt: timing.attempt, state: doc?.state ?? null }, 'stale retry task');
      return;
    }
    const id = doc._id;
    const kind = kindOf(doc);
    const permit = this.deps.hold.mayAttempt(endpointId(doc.partner_id, kind));
    if (!permit) return this.park(doc, line);
    // Measured when the HTTP attempt really starts.
    if (doc.next_attempt_at)
      metrics.retryLateness.observe({ path: 'topic' }, (clock.now().getTime() - doc.next_attempt_at.getTime()) / 1000);
    const done = await attempts.attempt(
      id,
      kind,
      doc.event,
      { attemptsMade: doc.attempts_made, attemptsLeft: doc.attempts_left },
      () => !work.fenced,
      permit,
    );
    // Withheld only once fenced. Past the hand-over deadline the next owner may run this task again:
    // it writes nothing more (an attempt sent is then repeated by that owner).
    if (done === null) return;
    if (done === 'held') return work.fenced ? undefined : this.park(doc, line);
    const refused = () => {
      metrics.attemptsUnrecorded.inc();
      logger.warn({ delivery_id: id }, 'write of a handed-over retry attempt refused');
    };
    if (work.fenced) return refused();
    await attempts.carryOn(id, kind, doc.event, done, () => !work.fenced);
    if (work.fenced) return refused();
    if (!(await recordAttempt(this.deps, doc, done))) return;
    if (done.decision.state !== 'queued') await line(doc, 'released');
  }

  // Its endpoint is held (paused, or its circuit open): the delivery is held, unattempted, and its
  // lead waits for the endpoint to resume. Held first, so an owner that reads the lead's block back
  // finds it held.
  private async park(doc: QueuedDelivery, line: (d: DeliveryDoc, end: RetryEnd) => Promise<void>): Promise<void> {
    const { metrics } = this.deps;
    await holdRecord(this.deps, doc, HELD_FOR_PAUSED_ENDPOINT);
    metrics.deliveries.inc({ event: doc.event.event, outcome: 'held', partner_id: doc.partner_id });
    await line(doc, 'parked');
  }

  // Refused by the scheduler (stopping, or a job of the delivery still under way): the task goes back
  // on its tier, one tier delay later, unattempted.
  private async defer(due: DueTask): Promise<void> {
    const { schedule, topics, logger, clock } = this.deps;
    const { task, tier, timing } = due;
    const delayMs = schedule.waitBefore(RETRY_TIERS.indexOf(tier) + 2).delayMs;
    logger.info(
      { delivery_id: task.delivery_id, endpoint: endpointId(task.event.partner_id, kindOf(task)) },
      'retry refused by the scheduler: it waits one more tier delay',
    );
    await published(logger, 'deferred task', () =>
      topics.task(tier, task, { dueAt: clock.now().getTime() + delayMs, attempt: timing.attempt }),
    );
  }
}

// Timers may fire a millisecond early: never run before the due time.
async function waitUntil(dueAt: number): Promise<void> {
  for (let wait = dueAt - Date.now(); wait > 0; wait = dueAt - Date.now())
    await new Promise((r) => setTimeout(r, wait).unref());
}
