import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Admin } from 'kafkajs';

// topics/topics.json declares every topic; this module names them (with TOPIC_PREFIX) and creates
// the missing ones. Creation is idempotent: existing topics are left as they are. How many copies a
// topic keeps depends on the cluster, not the topic: that comes from configuration.
export interface TopicSpec {
  key: TopicKey;
  name: string;
  partitions: number;
  retentionMs: number;
  cleanupPolicy: 'delete' | 'compact';
  schema: string | null;
  doc: string;
}

export type TopicKey =
  | 'intakeCommands'
  | 'intakeReplies'
  | 'intakeDeadLetter'
  | 'agentActions'
  | 'deposits'
  | 'leadCommands'
  | 'idleChecks'
  | 'leadAssignments'
  | 'crmDeadLetter'
  | 'leadEvents'
  | 'intakeRefusals'
  | 'reportDeltas'
  | 'callbackCommands'
  | 'endpointCommands'
  | 'callbackReplies'
  | 'retry1'
  | 'retry2'
  | 'retry3'
  | 'retry4'
  | 'callbacksDead'
  | 'partnerAlerts';

export type TopicNames = Readonly<Record<TopicKey, string>>;

export const TOPICS_FILE = join(__dirname, '..', '..', '..', 'topics', 'topics.json');

export function loadTopicSpecs(prefix: string): TopicSpec[] {
  const file = JSON.parse(readFileSync(TOPICS_FILE, 'utf8')) as { topics: TopicSpec[] };
  return file.topics.map((t) => ({ ...t, name: `${prefix}${t.name}` }));
}

export function topicNames(specs: readonly TopicSpec[]): TopicNames {
  return Object.freeze(Object.fromEntries(specs.map((t) => [t.key, t.name]))) as TopicNames;
}

export const RETRY_TIERS: readonly TopicKey[] = ['retry1', 'retry2', 'retry3', 'retry4'];

export interface Durability {
  replicationFactor: number;
  minInsyncReplicas: number; // with acks=all, a write succeeds only once this many replicas have it
}

export async function ensureTopics(
  admin: Admin,
  specs: readonly TopicSpec[],
  durability: Durability,
): Promise<string[]> {
  const existing = new Set(await admin.listTopics());
  await growRetryTiers(
    admin,
    specs.filter((t) => existing.has(t.name)),
  );
  const missing = specs.filter((t) => !existing.has(t.name));
  if (missing.length === 0) return [];
  await admin.createTopics({
    waitForLeaders: false,
    topics: missing.map((t) => ({
      topic: t.name,
      numPartitions: t.partitions,
      replicationFactor: durability.replicationFactor,
      configEntries: [
        { name: 'retention.ms', value: String(t.retentionMs) },
        { name: 'cleanup.policy', value: t.cleanupPolicy },
        { name: 'min.insync.replicas', value: String(durability.minInsyncReplicas) },
      ],
    })),
  });
  await waitForLeaders(
    admin,
    missing.map((t) => t.name),
  );
  return missing.map((t) => t.name);
}

// The retry tiers are read with leads.events in one co-partitioned group, so they need its partition
// count: tiers made with fewer (before they were co-partitioned) get partitions added. Safe for the
// tiers alone: a task left on a partition that is not its lead's reports its end to the lead's owner
// by command (dispatcher/lead-owner/owner.ts). Other topics keep their count: adding partitions
// moves keys, and with them their order.
async function growRetryTiers(admin: Admin, existing: readonly TopicSpec[]): Promise<void> {
  const tiers = existing.filter((t) => RETRY_TIERS.includes(t.key));
  if (tiers.length === 0) return;
  const { topics } = await admin.fetchTopicMetadata({ topics: tiers.map((t) => t.name) });
  const grow = tiers.flatMap((t) => {
    const now = topics.find((m) => m.name === t.name)?.partitions.length ?? t.partitions;
    return now < t.partitions ? [{ topic: t.name, count: t.partitions }] : [];
  });
  if (grow.length === 0) return;
  await admin.createPartitions({ topicPartitions: grow });
  await waitForLeaders(
    admin,
    grow.map((g) => g.topic),
    Object.fromEntries(grow.map((g) => [g.topic, g.count])),
  );
}

// kafkajs' own waitForLeaders gives up on UNKNOWN_TOPIC_OR_PARTITION while a new topic propagates;
// poll the metadata until every partition has a leader instead.
// `counts`: partitions a topic must show (added ones reach the brokers' metadata a moment later).
async function waitForLeaders(
  admin: Admin,
  topics: string[],
  counts: Record<string, number> = {},
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const { topics: meta } = await admin.fetchTopicMetadata({ topics });
      const ready = (t: (typeof meta)[number]) =>
        t.partitions.length >= Math.max(1, counts[t.name] ?? 0) && t.partitions.every((p) => p.leader >= 0);
      if (meta.every(ready)) return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
    }
    if (Date.now() > deadline) throw new Error(`topics without leaders after ${timeoutMs} ms: ${topics.join(', ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
