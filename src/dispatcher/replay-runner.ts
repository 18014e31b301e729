import type { Collection } from 'mongodb';
import type { Logger } from '../shared/logger';
import { insertAllNew } from '../shared/mongo/bulk';
import type { ReplayJobDoc } from '../shared/mongo/documents';
import type { EndpointCommand } from '../shared/schemas';
import { untilDone } from '../shared/retriable';
import type { DeliveryStore } from './delivery-store';
import { published, type DeliveryTopics } from './delivery-topics';
import { Background } from '../shared/background';
import type { Clock } from '../shared/clock';

// The job a manager's `replay` command asks for, or null for another command (or one from a
// manager that stored its job itself, before this was the keeper's).
export function replayJobOf(command: EndpointCommand, now: Date): ReplayJobDoc | null {
  if (command.kind !== 'replay' || !command.job_id || !command.from || !command.to) return null;
  return {
    _id: command.job_id,
    partner_id: command.partner_id,
    partition: -1,
    from: new Date(command.from),
    to: new Date(command.to),
    events: command.events ?? [],
    state: 'queued',
    found: 0,
    sent: 0,
    requested_by: command.by ?? 'unknown',
    created_at: new Date(command.at),
    updated_at: now,
    finished_at: null,
    error: null,
  };
}

// Progress is saved every this many commands: a restarted job goes on from there (a few repeats of
// a replay are harmless: each is a fresh round only if the delivery is not under way).
const SAVE_EVERY = 50;

export interface ReplayRunnerDeps {
  jobs: Collection<ReplayJobDoc>;
  store: DeliveryStore;
  topics: DeliveryTopics;
  ratePerS: number;
  logger: Logger;
  clock: Clock;
}

// Runs a manager's replay jobs for the partners whose callbacks.endpoints partitions this
// dispatcher owns: every delivery of the partner created in the range, oldest first (read from the
// delivery list), becomes a
// `replay` command for its lead's owner (a fresh round, same event id), at REPLAY_RATE_PER_S. The job
// document is written only here, by _id; a job cut short by a restart or a rebalance is picked up
// by the partition's next owner from its saved progress.
export class ReplayRunner {
  private readonly running = new Map<string, number>(); // job id -> the assignment its run belongs to
  private readonly runs = new Background();
  private stopping = false;
  private assignment = 0; // the endpoint consumer's join: a run stops once it changes

  constructor(private readonly deps: ReplayRunnerDeps) {}

  // Stores jobs not stored yet: a command seen again keeps its job as it is.
  async create(jobs: readonly ReplayJobDoc[]): Promise<void> {
    await insertAllNew(this.deps.jobs, jobs);
  }

  // A run of an earlier assignment may still be finishing its last command: this one starts anyway.
  start(jobId: string, partition: number): void {
    const assignment = this.assignment;
    if (this.stopping || this.running.get(jobId) === assignment) return;
    this.running.set(jobId, assignment);
    this.runs.run(
      async () => {
        try {
          await this.run(jobId, partition, assignment);
        } catch (err) {
          await this.failed(jobId, err);
        } finally {
          if (this.running.get(jobId) === assignment) this.running.delete(jobId);
        }
      },
      (err: unknown) => this.deps.logger.error({ job_id: jobId, err: (err as Error).message }, 'replay job run failed'),
    );
  }

  private async failed(jobId: string, err: unknown): Promise<void> {
    this.deps.logger.error({ job_id: jobId, err: (err as Error).message }, 'replay job failed');
    const now = this.deps.clock.now();
    await this.deps.jobs
      .updateOne(
        { _id: jobId },
        { $set: { state: 'failed', error: (err as Error).message, finished_at: now, updated_at: now } },
      )
      .catch(() => undefined);
  }

  // Jobs of a partition this dispatcher was just given (a small collection, read on assignment).
  async resumePartition(partition: number): Promise<void> {
    const jobs = await this.deps.jobs.find({ partition, state: 'running' }, { projection: { _id: 1 } }).toArray();
    for (const job of jobs) this.start(job._id, partition);
  }

  // No run starts; those under way stop at their next command (the saved progress lets the next
  // owner go on) and are waited for.
  async stop(): Promise<void> {
    this.stopping = true;
    await this.runs.settled();
  }

  // The endpoint consumer joined its group again: every partition may have moved, so the runs of
  // the assignment before stop at their next command and the partitions' owners resume them.
  handOver(): void {
    this.assignment++;
  }

  private async run(jobId: string, partition: number, assignment: number): Promise<void> {
    const { jobs, store, topics, logger } = this.deps;
    const retrying = (err: unknown, attempt: number) =>
      logger.warn(
        { job_id: jobId, attempt, err: (err as Error).message },
        'replay job: database call failed; trying again',
      );
    const job = await untilDone(
      () =>
        jobs.findOneAndUpdate(
          { _id: jobId, state: { $in: ['queued', 'running'] } },
          { $set: { state: 'running', partition, updated_at: this.deps.clock.now() } },
          { returnDocument: 'after' },
        ),
      retrying,
    );
    if (!job) return;
    const range = { partnerId: job.partner_id, from: job.from, to: job.to, events: job.events };
    // Counted beside the sending, not before it: the first callback goes out at once, however long
    // the range. A restarted job keeps the count it had.
    const counting =
      job.sent === 0
        ? untilDone(() => store.countInRange(range), retrying).then(async (found) => {
            await untilDone(
              () =>
                jobs.updateOne(
                  { _id: jobId, state: 'running' },
                  { $set: { found, updated_at: this.deps.clock.now() } },
                ),
              retrying,
            );
            return found;
          })
        : Promise.resolve(job.found);
    const gapMs = 1000 / this.deps.ratePerS;
    let sent = job.sent;
    let cursor = job.cursor ?? null;
    for await (const d of store.inRange(range, cursor)) {
      // Still running: the partition's next owner goes on from the saved progress.
      if (this.stopping || assignment !== this.assignment) return;
      await published(logger, 'replay command', () =>
        topics.command({
          kind: 'replay',
          delivery_id: d.ref,
          lead_id: String(d.lead_id),
          partner_id: job.partner_id,
          at: this.deps.clock.now().toISOString(),
          by: jobId,
        }),
      );
      sent++;
      cursor = d.suffix;
      if (sent % SAVE_EVERY === 0)
        await untilDone(
          () => jobs.updateOne({ _id: jobId }, { $set: { sent, cursor, updated_at: this.deps.clock.now() } }),
          retrying,
        );
      await new Promise((r) => setTimeout(r, gapMs).unref());
    }
    const found = await counting;
    const now = this.deps.clock.now();
    await untilDone(
      () =>
        jobs.updateOne(
          { _id: jobId },
          { $set: { state: 'done', sent, cursor, found: Math.max(found, sent), finished_at: now, updated_at: now } },
        ),
      retrying,
    );
    logger.info({ job_id: jobId, partner_id: job.partner_id, sent }, 'replay job done');
  }
}
