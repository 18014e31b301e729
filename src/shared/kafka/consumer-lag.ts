import type { Admin } from 'kafkajs';
import { Gauge, type Registry } from 'prom-client';
import type { Logger } from '../logger';
import type { GroupTopics } from './consumer-groups';

const CACHE_MS = 5000;

export interface PartitionOffsets {
  partition: number;
  committed: number; // -1: the group has committed nothing there yet
  low: number;
  high: number;
}

// Messages a group has yet to process in one topic: high watermark minus committed offset, summed
// over partitions. An uncommitted partition counts from its low watermark, since every group of
// ours starts from the beginning; so does one whose committed messages retention already deleted.
export function topicLag(partitions: readonly PartitionOffsets[]): number {
  return partitions.reduce((sum, p) => sum + Math.max(0, p.high - Math.max(p.committed, p.low)), 0);
}

// lead_intake_kafka_consumer_lag_messages{group,topic}, read from Kafka at scrape time at most every
// 5 s. Every replica of a role reports the same group-wide number: aggregate with max, not sum.
export function registerConsumerLag(
  registry: Registry,
  admin: Admin,
  groups: readonly GroupTopics[],
  logger: Logger,
): void {
  let cached: { at: number; lag: { group: string; topic: string; messages: number }[] } | null = null;
  let inFlight: Promise<void> | null = null;
  const refresh = async () => {
    try {
      cached = { at: Date.now(), lag: (await Promise.all(groups.map((g) => groupLag(admin, g)))).flat() };
    } catch (err) {
      // Keep the last numbers: a scrape must not fail because Kafka is slow for a moment.
      logger.warn({ err: (err as Error).message }, 'could not read consumer lag');
    }
  };
  new Gauge({
    name: 'lead_intake_kafka_consumer_lag_messages',
    help: 'Messages not yet processed by a consumer group, per topic (high watermark minus committed offset), read at most every 5 s',
    labelNames: ['group', 'topic'],
    registers: [registry],
    async collect() {
      if (!cached || Date.now() - cached.at > CACHE_MS)
        inFlight ??= refresh().finally(() => {
          inFlight = null;
        });
      // Only the first scrape waits for Kafka; later ones answer with the last numbers while the
      // refresh runs, so a slow broker cannot make the whole scrape time out.
      if (!cached) await inFlight;
      for (const l of cached?.lag ?? []) this.set({ group: l.group, topic: l.topic }, l.messages);
    },
  });
}

async function groupLag(admin: Admin, { group, topics }: GroupTopics) {
  const committed = await admin.fetchOffsets({ groupId: group, topics: [...topics] });
  return Promise.all(
    committed.map(async ({ topic, partitions }) => {
      const watermarks = new Map((await admin.fetchTopicOffsets(topic)).map((w) => [w.partition, w]));
      const offsets = partitions.map((p) => {
        const w = watermarks.get(p.partition);
        return {
          partition: p.partition,
          committed: Number(p.offset),
          low: Number(w?.low ?? 0),
          high: Number(w?.high ?? 0),
        };
      });
      return { group, topic, messages: topicLag(offsets) };
    }),
  );
}
