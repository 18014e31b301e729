import { AssignmentWork } from '../shared/kafka/assignment-work';
import { MembershipLease } from '../shared/kafka/membership-lease';
import {
  startBatchConsumer,
  type BatchConsumer,
  type BatchConsumerDeps,
  type Decoded,
} from '../shared/kafka/batch-consumer';
import { RETRY_TIERS, type TopicKey } from '../shared/kafka/topics';
import type { Logger } from '../shared/logger';
import { HELD_FOR_PAUSED_ENDPOINT, type DeliveryDoc, type QueuedDelivery } from '../shared/mongo/delivery-doc';
import { untilDone } from '../shared/retriable';
import type { DeliveryTask } from '../shared/schemas';
import type { DeliveryAttempts } from './delivery-attempt';
import type { DeliveryScheduler } from './delivery-scheduler';
import type { DeliveryStore } from './delivery-store';
import type { EndpointHold } from './endpoint-hold';
import { readTaskHeaders, type TaskTiming } from './delivery-task';
import { published, type DeliveryTopics } from './delivery-topics';
import { dueAction } from './due-gate';
import { readRecord, recordFor } from './task-record';
import type { DispatcherMetrics } from './metrics';
import type { RetrySchedule } from './retry-policy';
import type { Clock } from '../shared/clock';
import { endpointId, kindOf } from '../shared/delivery-kind';

// A message due within this window is held in memory instead of pausing its partition. It must
// exceed one fetch round trip (FETCH_MAX_WAIT_MS plus latency), so that a partition resumed this
// long before the due time has its message back in hand before the due time. The fetch wait (never
// longer than the other consumers', so a stop waits no longer) is what the tiers cost at rest: a
// fetch of every tier partition each time.
const HOLD_WINDOW_MS = 5000;
const FETCH_MAX_WAIT_MS = 2000;
// Tasks a tier partition may have handed out and not recorded.
const MAX_UNCOMMITTED = 2000;

export interface RetryConsumerDeps {
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

// Consumes the four retry tier topics. Each partition is in due order (one delay per topic), so when
// its head is not due the partition is paused, and resumed with a seek back to that message shortly
// before it is: other partitions keep flowing and the consumer keeps heartbeating meanwhile. A due
// task is the token of its delivery: its holder reads the record, attempts, hands the token on
// (next tier) before updating the record by _id, and reports a delivery that ended to its lead's
// owner (`released`). The task's offset is committed only once that is recorded.
export async function startRetryConsumer(kafka: BatchConsumerDeps, deps: RetryConsumerDeps): Promise<BatchConsumer> {
  const { logger, metrics } = deps;
  // The tasks of this assignment of the tier partitions; replaced at every hand-over.
  // Its lease on the tier partitions (membership-lease.ts): past it, no attempt starts or is recorded.
  const lease = MembershipLease.forSession(kafka.settings.sessionTimeoutMs);
  let current = { work: new AssignmentWork(lease), chains: new Map<string, Promise<void>>() }; // chains: one task of a delivery at a time

  const runTask = (task: DeliveryTask, timing: TaskTiming, tier: TopicKey): Promise<void> => {
    const { work, chains } = current;
    const id = task.delivery_id;
    const endpoint = endpointId(task.event.partner_id, kindOf(task));
    // Let go once submitted: what this closure keeps while the task waits for room is its id and timing.
    let toDefer: DeliveryTask | null = task;
    const next = (chains.get(id) ?? Promise.resolve())
      .then(() => waitUntil(timing.dueAt))
      .then(() => recordFor(deps, id, timing, () => !work.open))
      .then(
        () =>
          new Promise<void>((resolve) => {
            if (!work.open) return; // handed over: uncommitted, the next owner runs it
            if (submitRetry(deps, work, { id, endpoint, timing }, resolve)) toDefer = null;
            else void work.track(defer(deps, toDefer as DeliveryTask, timing, tier)).then(resolve);
          }),
      );
    chains.set(id, next);
    void next.then(() => {
      if (chains.get(id) === next) chains.delete(id);
    });
    return next;
  };

  return startBatchConsumer<DeliveryTask>(kafka, {
    group: 'dispatcher-retry',
    topics: RETRY_TIERS,
    commit: 'recorded',
    maxUncommitted: MAX_UNCOMMITTED,
    lease,
    consumer: { maxWaitTimeInMs: Math.min(FETCH_MAX_WAIT_MS, kafka.settings.fetchMaxWaitMs) },
    // Never early: a task not due within the hold window pauses its partition until it nearly is.
    admit: (message) => {
      const timing = readTaskHeaders(message.headers);
      if (!timing) return 0;
      const action = dueAction(timing.dueAt, deps.clock.now().getTime(), HOLD_WINDOW_MS);
      return action.kind === 'pause' ? action.resumeInMs : 0;
    },
    handle: async (records: Decoded<DeliveryTask>[], ctx) =>
      records.map((r) => {
        const timing = readTaskHeaders(r.message.headers);
        if (!timing) {
          metrics.undecodable.inc({ topic: ctx.topic });
          logger.error(
            { topic: ctx.topic, partition: ctx.partition, offset: r.message.offset },
            'skipped a retry task without due-time headers',
          );
          return undefined;
        }
        return runTask(r.value, timing, ctx.topic);
      }),
    // Before every rebalance and at a stop: tasks not started are left to the next owner, attempts
    // under way are recorded first.
    handOver: async () => {
      const { work } = current;
      current = { work: new AssignmentWork(lease), chains: new Map() };
      const closing = work.close();
      deps.scheduler.dropFenced();
      const cut = await closing;
      if (cut > 0)
        logger.warn({ cut }, 'retry attempts still under way when the lease ran out: their records are refused');
    },
    undecodable: async (items, ctx) => {
      for (const item of items) {
        metrics.undecodable.inc({ topic: ctx.topic });
        logger.error(
          { topic: ctx.topic, partition: ctx.partition, offset: item.message.offset, reason: item.error.reason },
          'skipped an undecodable retry task',
        );
      }
    },
  });
}

// Timers may fire a millisecond early: never run before the due time.
async function waitUntil(dueAt: number): Promise<void> {
  for (let wait = dueAt - Date.now(); wait > 0; wait = dueAt - Date.now())
    await new Promise((r) => setTimeout(r, wait).unref());
}

// Beyond the partner's queue a due task waits for room there: the tier partition's uncommitted tasks
// (MAX_UNCOMMITTED) bound how many do, and a backlog drains at the partner's pace. Made apart from
// the task, so that a waiting one holds neither the decoded task nor its record: the record is read
// again (with others, DeliveryStore.get) when its turn comes.
function submitRetry(
  deps: RetryConsumerDeps,
  work: AssignmentWork,
  due: { id: string; endpoint: string; timing: TaskTiming },
  done: () => void,
): boolean {
  const { id, timing } = due;
  const attempt = async () => attemptRetry(deps, await readRecord(deps, id), timing, work);
  return deps.scheduler.submitWhenRoom({
    deliveryId: id,
    partnerId: due.endpoint,
    fenced: () => !work.open,
    run: () => (work.open ? work.track(attempt()).then(done) : Promise.resolve()),
  });
}

async function attemptRetry(
  deps: RetryConsumerDeps,
  doc: DeliveryDoc | null,
  timing: TaskTiming,
  work: AssignmentWork,
): Promise<void> {
  const { store, attempts, metrics, logger } = deps;
  if (!doc || doc.state !== 'queued' || doc.attempts_made !== timing.attempt - 1) {
    // A task whose record ended: its own attempt recorded already (a crash after the record, before
    // this offset was committed), or another owner's record won (an owner that lost its partitions
    // without knowing recorded the same delivery first). Its lead's line may wait for this release
    // either way, so it goes (again); a release of a delivery the line no longer waits for is ignored.
    if (doc && doc.state !== 'queued') await release(deps, doc);
    else logger.debug({ attempt: timing.attempt, state: doc?.state ?? null }, 'stale retry task');
    return;
  }
  const id = doc._id;
  const kind = kindOf(doc);
  const permit = deps.hold.mayAttempt(endpointId(doc.partner_id, kind));
  if (!permit) return park(deps, doc);
  // Measured when the HTTP attempt really starts.
  if (doc.next_attempt_at)
    metrics.retryLateness.observe(
      { path: 'topic' },
      (deps.clock.now().getTime() - doc.next_attempt_at.getTime()) / 1000,
    );
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
  if (done === 'held') return work.fenced ? undefined : park(deps, doc);
  const refused = () => {
    metrics.attemptsUnrecorded.inc();
    logger.warn({ delivery_id: id }, 'write of a handed-over retry attempt refused');
  };
  if (work.fenced) return refused();
  await attempts.carryOn(id, kind, doc.event, done, () => !work.fenced);
  if (work.fenced) return refused();
  const written = await untilDone(
    () => store.recordAttempt(doc, done.at, done.result, done.decision),
    (err, attempt) =>
      logger.warn(
        { delivery_id: id, attempt, err: (err as Error).message },
        'could not record an attempt; trying again',
      ),
  );
  if (!written)
    return logger.warn(
      { delivery_id: id, attempt: timing.attempt },
      'the record moved on meanwhile (another owner recorded this attempt): this one is refused',
    );
  if (done.decision.state !== 'queued') await release(deps, doc);
}

// Its endpoint is held (paused, or its circuit open): the delivery is held, unattempted, and handed to its lead's owner, which
// sends it when the endpoint resumes. Held before the command goes, so an owner that reads the
// lead's block back finds it held.
async function park(deps: RetryConsumerDeps, doc: QueuedDelivery): Promise<void> {
  const { store, topics, metrics, logger } = deps;
  await untilDone(
    () => store.markHeld(doc, HELD_FOR_PAUSED_ENDPOINT),
    (err, attempt) =>
      logger.warn(
        { delivery_id: doc._id, attempt, err: (err as Error).message },
        'could not hold a delivery; trying again',
      ),
  );
  metrics.deliveries.inc({ event: doc.event.event, outcome: 'held', partner_id: doc.partner_id });
  await published(logger, 'parked', () =>
    topics.command({
      kind: 'parked',
      delivery_id: doc._id,
      lead_id: doc.lead_id,
      partner_id: doc.partner_id,
      at: deps.clock.now().toISOString(),
      ...deliveryKindOf(doc),
    }),
  );
}

// The delivery ended (delivered or dead): its lead's later callbacks may go.
async function release(
  deps: RetryConsumerDeps,
  doc: Pick<DeliveryDoc, '_id' | 'lead_id' | 'partner_id' | 'kind'>,
): Promise<void> {
  await published(deps.logger, 'release', () =>
    deps.topics.command({
      kind: 'released',
      delivery_id: doc._id,
      lead_id: doc.lead_id,
      partner_id: doc.partner_id,
      at: deps.clock.now().toISOString(),
      ...deliveryKindOf(doc),
    }),
  );
}

// A command names a postback's line by delivery_kind (absent: a callback's).
const deliveryKindOf = (doc: Pick<DeliveryDoc, 'kind'>) => (doc.kind ? { delivery_kind: doc.kind } : {});

// Refused by the scheduler (stopping, or a job of the delivery still under way): the task goes back
// on its tier, one tier delay later, unattempted.
async function defer(deps: RetryConsumerDeps, task: DeliveryTask, timing: TaskTiming, tier: TopicKey): Promise<void> {
  const { schedule, topics, logger, clock } = deps;
  const delayMs = schedule.waitBefore(RETRY_TIERS.indexOf(tier) + 2).delayMs;
  logger.info(
    { delivery_id: task.delivery_id, endpoint: endpointId(task.event.partner_id, kindOf(task)) },
    'retry refused by the scheduler: it waits one more tier delay',
  );
  await published(logger, 'deferred task', () =>
    topics.task(tier, task, { dueAt: clock.now().getTime() + delayMs, attempt: timing.attempt }),
  );
}
