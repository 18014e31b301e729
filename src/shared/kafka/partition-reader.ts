import { randomUUID } from 'node:crypto';
import type { Consumer, EachBatchPayload } from 'kafkajs';
import type { Decoded } from './batch-types';
import { createConsumer } from './client';
import type { ConsumerClients } from './consumer-settings';
import type { TopicKey } from './topics';

const IDLE_MS = 60_000;

// What the reader's user does with records of a partition read from where it asked: how many of
// them (from the first) it took. Fewer than all halts the partition after them until asked again.
export type TakeRecords<T> = (partition: number, records: Decoded<T>[]) => Promise<number>;

// Reads chosen partitions of one topic from chosen offsets, beside the group that owns the topic's
// partitions and commits them: a consumer in a group of its own (its only member, so every partition
// is assigned to it), committing nothing, every partition paused but those being read. Started at
// the first read; a read asks for a partition from an offset, and the partition is read on (at its
// end, as new records come) until the user takes less than a batch or halts it. Undecodable
// messages are skipped (the owning group reports them). A reader with nothing to read for a minute
// leaves (a consumer at rest still heartbeats): the next read starts one again.
export class PartitionReader<T> {
  private consumer: Consumer | null = null;
  private starting: Promise<void> | null = null;
  private retiring: Promise<void> = Promise.resolve();
  private idle: NodeJS.Timeout | null = null;
  private generation = 0; // of the consumer: one that retired hears nothing more
  private readonly reading = new Map<number, number>(); // partition -> offset asked for
  private assigned: number[] = [];
  private stopped = false;

  constructor(
    private readonly clients: ConsumerClients,
    private readonly group: string,
    private readonly topic: TopicKey,
    private readonly take: TakeRecords<T>,
    private readonly idleMs = IDLE_MS,
  ) {}

  // Reads the partition from `offset` on (again, if it was being read).
  read(partition: number, offset: number): void {
    if (this.stopped) return;
    this.reading.set(partition, offset);
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    if (this.consumer && this.assigned.includes(partition)) this.resume(this.consumer, partition, offset);
    this.starting ??= this.start().catch((err: unknown) => {
      this.clients.logger.error({ group: this.group, err: (err as Error).message }, 'partition reader did not start');
      this.starting = null;
    });
  }

  // Where the partition is being read from next; undefined: halted.
  position(partition: number): number | undefined {
    return this.reading.get(partition);
  }

  halt(partition: number): void {
    this.reading.delete(partition);
    this.consumer?.pause([{ topic: this.name, partitions: [partition] }]);
    if (this.reading.size === 0 && this.starting && !this.idle)
      this.idle = setTimeout(() => {
        this.idle = null;
        this.retiring = this.retire();
      }, this.idleMs).unref();
  }

  haltAll(): void {
    for (const partition of [...this.reading.keys()]) this.halt(partition);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.idle) clearTimeout(this.idle);
    await this.retiring;
    await this.starting;
    await this.consumer?.disconnect();
  }

  // Nothing asked for a while: the consumer leaves its group; a read starts another.
  private async retire(): Promise<void> {
    if (this.reading.size > 0) return;
    const starting = this.starting;
    const consumer = this.consumer;
    this.generation++;
    this.starting = null;
    this.consumer = null;
    this.assigned = [];
    await starting;
    await consumer
      ?.disconnect()
      .catch((err: unknown) =>
        this.clients.logger.warn({ group: this.group, err: (err as Error).message }, 'partition reader did not leave'),
      );
  }

  private get name(): string {
    return this.clients.topics[this.topic];
  }

  private async start(): Promise<void> {
    const { kafka, settings } = this.clients;
    const generation = this.generation;
    const consumer = createConsumer(kafka, settings, `${this.group}-${randomUUID()}`);
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      if (generation !== this.generation) return;
      this.assigned = payload.memberAssignment[this.name] ?? [];
      for (const partition of this.assigned) {
        const offset = this.reading.get(partition);
        if (offset === undefined) consumer.pause([{ topic: this.name, partitions: [partition] }]);
        else this.resume(consumer, partition, offset);
      }
    });
    await consumer.connect();
    await consumer.subscribe({ topics: [this.name] });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 4,
      eachBatch: (payload) =>
        generation === this.generation ? this.batch(consumer, payload) : Promise.resolve(undefined),
    });
    if (generation !== this.generation) return consumer.disconnect(); // retired while it started
    this.consumer = consumer;
    if (this.stopped) return consumer.disconnect();
    // Asked for while it joined: read from there.
    for (const [partition, offset] of this.reading)
      if (this.assigned.includes(partition)) this.resume(consumer, partition, offset);
  }

  private resume(consumer: Consumer, partition: number, offset: number): void {
    try {
      consumer.seek({ topic: this.name, partition, offset: String(offset) });
      consumer.resume([{ topic: this.name, partitions: [partition] }]);
    } catch (err) {
      // Not running (restarting after a crash): its next join seeks every partition asked for.
      this.clients.logger.warn({ partition, err: (err as Error).message }, 'partition reader could not seek');
    }
  }

  private async batch(consumer: Consumer, { batch, resolveOffset, isRunning, isStale }: EachBatchPayload) {
    const { partition } = batch;
    const from = this.reading.get(partition);
    if (from === undefined) return consumer.pause([{ topic: this.name, partitions: [partition] }]);
    const messages = batch.messages.filter((m) => Number(m.offset) >= from);
    const records: Decoded<T>[] = [];
    for (const message of messages) {
      try {
        const value = await this.clients.codec.decode<T>(this.topic, message.value);
        records.push({ topic: this.topic, partition, message, value });
      } catch {
        // not a valid message: the owning group dead-letters or reports it
      }
    }
    const taken = records.length === 0 ? 0 : await this.take(partition, records);
    if (!isRunning() || isStale() || this.reading.get(partition) !== from) return; // asked again meanwhile
    const last = taken === records.length ? messages[messages.length - 1] : records[taken - 1]?.message;
    if (last) {
      resolveOffset(last.offset);
      this.reading.set(partition, Number(last.offset) + 1);
    }
    if (taken < records.length) this.halt(partition);
  }
}

// Where the group's consumers start on a partition of the topic: its committed offset (-1: none).
export async function committedOffset(
  clients: ConsumerClients,
  group: string,
  topic: TopicKey,
  partition: number,
): Promise<number> {
  if (!clients.admin) throw new Error('committedOffset needs the admin client');
  const name = clients.topics[topic];
  const [found] = await clients.admin.fetchOffsets({
    groupId: `${clients.settings.groupPrefix}${group}`,
    topics: [name],
  });
  return Number(found?.partitions.find((p) => p.partition === partition)?.offset ?? -1);
}
