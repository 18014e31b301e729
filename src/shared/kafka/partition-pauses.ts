import type { Consumer } from 'kafkajs';
import type { Logger } from '../logger';

interface PausedPartition {
  topic: string;
  partition: number;
  offset: string;
  timer: NodeJS.Timeout;
}

// Partitions paused until their head message may be handled, then resumed with a seek back to it.
export class PartitionPauses {
  private readonly paused = new Map<string, PausedPartition>();
  private stopping = false;

  constructor(
    private readonly consumer: Consumer,
    private readonly logger: Logger,
  ) {
    // A rebalance keeps kafkajs's pause flags: resume everything, seeking only where we still own
    // the partition. The head message comes back and is judged again.
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      for (const p of [...this.paused.values()])
        this.resume(p, payload.memberAssignment[p.topic]?.includes(p.partition) ?? false);
    });
    // A crashed consumer forgets its pauses and restarts from its committed offsets: so do we.
    consumer.on(consumer.events.CRASH, () => this.clear());
  }

  pause(topic: string, partition: number, offset: string, waitMs: number): void {
    if (this.stopping) return;
    this.consumer.pause([{ topic, partitions: [partition] }]);
    const entry: PausedPartition = {
      topic,
      partition,
      offset,
      timer: setTimeout(() => this.resume(entry, true), waitMs),
    };
    this.paused.set(`${topic}:${partition}`, entry);
  }

  stop(): void {
    this.stopping = true;
    this.clear();
  }

  clear(): void {
    for (const p of this.paused.values()) clearTimeout(p.timer);
    this.paused.clear();
  }

  private resume(p: PausedPartition, seek: boolean): void {
    clearTimeout(p.timer);
    this.paused.delete(`${p.topic}:${p.partition}`);
    try {
      // Seek before resuming: kafkajs may never resume a partition paused before it consumed (#1599).
      if (seek) this.consumer.seek({ topic: p.topic, partition: p.partition, offset: p.offset });
      this.consumer.resume([{ topic: p.topic, partitions: [p.partition] }]);
    } catch (err) {
      // Not running (crashed, restarting): its next join fetches from the committed offset, this
      // uncommitted message included. From a timer, the throw would have ended the process.
      this.logger.warn(
        { topic: p.topic, partition: p.partition, err: (err as Error).message },
        'could not resume a paused partition',
      );
    }
  }
}
