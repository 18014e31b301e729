import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Admin } from 'kafkajs';

// topics/topics.json declares every topic; this module names them (with TOPIC_PREFIX) and creates
// the missing ones. Creation is idempotent: existing topics are left as they are.
export interface TopicSpec {
  key: TopicKey;
  name: string;
  partitions: number;
  replication: number;
  retentionMs: number;
  cleanupPolicy: 'delete' | 'compact';
  schema: string | null;
  doc: string;
}

export type TopicKey =
  | 'intakeCommands' | 'intakeReplies' | 'agentActions' | 'deposits' | 'crmDeadLetter' | 'leadEvents'
  | 'retry1' | 'retry2' | 'retry3' | 'retry4' | 'callbacksDead';

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

export async function ensureTopics(admin: Admin, specs: readonly TopicSpec[]): Promise<string[]> {
  const existing = new Set(await admin.listTopics());
  const missing = specs.filter((t) => !existing.has(t.name));
  if (missing.length === 0) return [];
  await admin.createTopics({
    waitForLeaders: true,
    topics: missing.map((t) => ({
      topic: t.name,
      numPartitions: t.partitions,
      replicationFactor: t.replication,
      configEntries: [
        { name: 'retention.ms', value: String(t.retentionMs) },
        { name: 'cleanup.policy', value: t.cleanupPolicy },
      ],
    })),
  });
  return missing.map((t) => t.name);
}
