import type { Attempted } from '../../src/dispatcher/delivery-attempt';
import { CarryOut, leadOf, type CarryOutDeps, type Lead } from '../../src/dispatcher/lead-owner/carry-out';
import { newItem, OwnedPartitions, type Item } from '../../src/dispatcher/lead-owner/owned-partitions';
import { retrySchedule } from '../../src/dispatcher/retry-policy';
import { createLogger } from '../../src/shared/logger';
import { HELD_FOR_PAUSED_ENDPOINT, type DeliveryDoc } from '../../src/shared/mongo/delivery-doc';
import type { DeliveryTask, LeadEvent } from '../../src/shared/schemas';

const event: LeadEvent = {
  event_id: 'le-1:0',
  event: 'lead.accepted',
  lead_id: 'le-1',
  partner_id: 'pa-1',
  external_lead_id: 'x1',
  our_status: 'new',
  is_depositor: false,
  occurred_at: '2026-11-27T10:00:00.000Z',
};

const at = new Date('2026-11-27T10:00:01.000Z');
const base = {
  event_id: event.event_id,
  event_name: event.event,
  partner_id: 'pa-1',
  lead_id: 'le-1',
  event,
  attempts_made: 0,
  attempts_left: 5,
  last_http_status: null,
  last_response_body: null,
  last_error: null,
  attempts: [],
  manual_retries: [],
  created_at: at,
  updated_at: at,
};

export const heldRecord = (id: string, heldBy: string): DeliveryDoc => ({
  ...base,
  _id: id,
  state: 'queued',
  held_by: heldBy,
  next_attempt_at: null,
});
export const waitingRecord = (id: string, retries: { at: Date; by: string }[] = []): DeliveryDoc => ({
  ...base,
  _id: id,
  state: 'queued',
  next_attempt_at: at,
  manual_retries: retries,
});
export const endedRecord = (id: string, state: 'delivered' | 'dead'): DeliveryDoc => ({
  ...base,
  _id: id,
  state,
  attempts_made: 1,
  next_attempt_at: null,
});

const result = {
  httpStatus: 503,
  failure: null,
  error: null,
  responseBody: 'later',
  durationMs: 40,
  retryAfterMs: null,
};
export const failed: Attempted = {
  at,
  result,
  decision: { state: 'queued', attemptsMade: 1, attemptsLeft: 4, nextAttemptAt: at.getTime() + 1000, tier: 'retry1' },
};
export const delivered: Attempted = {
  at,
  result: { ...result, httpStatus: 200, responseBody: 'ok' },
  decision: { state: 'delivered', attemptsMade: 1, attemptsLeft: 0 },
};

// I/O answers some turns of the event loop later, as a server's would: what a lead's turn starts
// before it waits is all started before any answer comes. A task's publish is the slowest and a
// block's save slower than a record's write, so a write that does not wait for the one it must
// follow shows up ahead of it in the log.
const TURNS = { record: 1, block: 2, task: 3 };
async function later<T>(value: T, turns = 1): Promise<T> {
  for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
  return value;
}

const held = (by: string) => (by === HELD_FOR_PAUSED_ENDPOINT ? 'parked for its endpoint' : `held behind ${by}`);

// A first record's _id is made of its event's; the shell's events are named "<lead>:<delivery>".
const idOf = (doc: DeliveryDoc): string => doc.event_id.slice(doc.event_id.indexOf(':') + 1);

function firstRecord(doc: DeliveryDoc): string {
  if (doc.attempts_made > 0) return `new, ${doc.state}`;
  return doc.held_by ? `new, ${held(doc.held_by)}` : 'new, on the first retry tier';
}

// The real carry-out (carry-out.ts) of one lead's line, over an in-memory shell of what it talks
// to: the partner's slots, the endpoint's pause, the retry topics, the store's records and blocks,
// the offsets. `log` is what reached the shell, in order: sent, published, recorded, committed, the
// lead's block as stored, the slot freed.
export class LeadShell {
  readonly log: string[] = [];
  readonly a = new OwnedPartitions();
  readonly records = new Map<string, DeliveryDoc>(); // what a read of a record finds
  paused = false; // the endpoint holds its deliveries
  queueFull = false; // the partner's queue in the scheduler
  stopping = false; // the scheduler
  readonly earlierJobs = new Map<string, () => void>(); // jobs in the scheduler of an older assignment
  private readonly jobs = new Map<string, () => Promise<void>>();
  private next: Attempted | 'held' = delivered; // the next attempt's outcome
  readonly carry: CarryOut;

  constructor() {
    this.a.claimed(0, 1);
    const shell = this; // the scheduler reads `stopping` as a getter
    const log = (line: string) => void this.log.push(line);
    // Logged as it is done: a write stored, a task published, a record read.
    const answer = <T>(line: string, value: T, turns = TURNS.record): Promise<T> =>
      later(value, turns).then((v) => (log(line), v));
    const deps = {
      logger: createLogger('silent'),
      clock: { now: () => new Date(0) },
      schedule: retrySchedule([1, 300, 1800, 7200]),
      metrics: {
        deliveries: { inc: (labels: { outcome: string }) => log(`count ${labels.outcome}`) },
        attemptsUnrecorded: { inc: () => log('count unrecorded') },
      },
      hold: { holds: () => this.paused, mayAttempt: () => (this.paused ? null : 'attempt') },
      scheduler: {
        get stopping() {
          return shell.stopping;
        },
        isPending: (id: string) => this.earlierJobs.has(id),
        settled: (id: string) =>
          this.earlierJobs.has(id) ? new Promise<void>((r) => this.earlierJobs.set(id, r)) : null,
        submit: (job: { deliveryId: string; run: () => Promise<void> }) => {
          if (this.queueFull || this.stopping) return false;
          log(`send ${job.deliveryId}`);
          this.jobs.set(job.deliveryId, job.run);
          return true;
        },
      },
      attempts: {
        attempt: () => later(this.next),
        carryOn: (id: string, _kind: unknown, _event: unknown, { decision }: Attempted) =>
          decision.state === 'delivered'
            ? Promise.resolve()
            : answer(
                decision.state === 'queued' ? `retry task ${id} on ${decision.tier}` : `dead task ${id}`,
                undefined,
                TURNS.task,
              ),
      },
      topics: {
        task: (_tier: unknown, task: DeliveryTask) =>
          answer(`retry task ${task.delivery_id} on the first tier (${task.last_error})`, undefined, TURNS.task),
      },
      store: {
        get: (id: string) => answer(`read ${id}'s record`, this.records.get(id) ?? null),
        markHeld: (r: DeliveryDoc, by: string) => answer(`record ${r._id}: ${held(by)}`, true),
        recordAttempt: (r: DeliveryDoc, _at: Date, _result: unknown, d: { state: string }) =>
          answer(`record ${r._id}: attempt added, ${d.state}`, true),
        awaitRetry: (r: DeliveryDoc) => answer(`record ${r._id}: on the first retry tier`, true),
      },
      batcher: {
        add: (doc: DeliveryDoc, fenced: () => boolean) =>
          fenced() ? later(false) : answer(`record ${idOf(doc)}: ${firstRecord(doc)}`, true),
      },
      blocks: {
        save: (_ref: unknown, _partition: number, block: { blocker: string; held: string[] } | null) =>
          answer(block ? `block ${block.blocker} <- [${block.held.join(', ')}]` : 'unblock', true, TURNS.block),
      },
    };
    this.carry = new CarryOut(deps as unknown as CarryOutDeps, () => log('park the lead'));
  }

  get lead(): Lead {
    return { a: this.a, key: K, endpoint: 'pa-1', partition: 0 };
  }

  // A delivery of the lead: an event's (no record yet), or one with its record (a fresh round);
  // its offset waits for its record, and its commit is logged.
  item(id: string, doc: DeliveryDoc | null = null, leadId = 'le-1'): Item {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    const recorded = { promise, resolve: () => (this.log.push(`commit ${id}`), resolve()) };
    const of = { ...event, lead_id: leadId, event_id: `${leadId}:${id}` };
    return newItem(this.a, id, 'callback', of, 0, doc, recorded);
  }

  arrive(id: string, doc: DeliveryDoc | null = null, leadId = 'le-1'): void {
    const item = this.item(id, doc, leadId);
    this.a.activate(item);
    this.carry.arrive(leadOf(item), item);
  }

  // The attempt of a delivery sent to the scheduler, with this outcome; its slot's release logged.
  attempt(id: string, done: Attempted | 'held'): void {
    const run = this.jobs.get(id);
    if (!run) throw new Error(`${id} was not sent`);
    this.jobs.delete(id);
    this.next = done;
    void run().then(() => this.log.push(`free ${id}'s partner slot`));
  }

  // The job of an older assignment leaves the scheduler.
  earlierJobLeaves(id: string): void {
    const wake = this.earlierJobs.get(id);
    this.earlierJobs.delete(id);
    wake?.();
  }

  // Everything started has run its course (every answer in the shell comes within a turn or two).
  async quiet(): Promise<void> {
    for (let i = 0; i < 30; i++) await new Promise((r) => setImmediate(r));
  }
}

// The lead's key: endpointId('pa-1', 'callback') and the lead.
export const K = 'pa-1:le-1';
