import type { Admin } from 'kafkajs';
import { bareKafka } from '../../src/shared/kafka/client';
import Redis from 'ioredis';
import { MongoClient } from 'mongodb';
import { topicLag } from '../../src/shared/kafka/consumer-lag';
import type { PartnerCreds } from './leads';
import { MANAGER_TOKEN } from './env';

async function manager<T>(baseUrl: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${MANAGER_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: HTTP ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

// Partners through the manager API of a running ingress, as a manager creates them: intake quota
// raised to the schema's maximum (100,000 per minute each), callbacks to the local receiver.
export async function createPartners(
  ingressUrl: string,
  count: number,
  callbackUrl: (i: number) => string | null,
  tag: string,
): Promise<PartnerCreds[]> {
  const out: PartnerCreds[] = [];
  for (let i = 0; i < count; i++) {
    const created = await manager<{ id: string; api_key: string; hmac_secret: string; callback_secret: string }>(
      ingressUrl,
      'POST',
      '/api/affiliates',
      {
        name: `bench ${tag} partner ${i}`,
        callback_url: callbackUrl(i),
        rate_limits: { intake_per_minute: 100_000, status_per_minute: 100_000 },
      },
    );
    out.push({
      id: created.id,
      api_key: created.api_key,
      hmac_secret: created.hmac_secret,
      callback_secret: created.callback_secret,
    });
  }
  return out;
}

export async function createAgents(ingressUrl: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++)
    await manager(ingressUrl, 'POST', '/api/agents', { name: `bench agent ${i}`, active: true });
}

// Removes what a scenario created: its database (unless kept for another run), its topics (and consumer
// groups) and its Redis keys.
export async function dropScenario(env: Record<string, string>, keep: { database?: boolean } = {}): Promise<void> {
  const problems: string[] = [];
  if (!keep.database)
    try {
      const mongo = await MongoClient.connect(env.MONGO_URL as string, { serverSelectionTimeoutMS: 5000 });
      await mongo.db(env.MONGO_DB).dropDatabase();
      await mongo.close();
    } catch (err) {
      problems.push(`mongo: ${(err as Error).message}`);
    }
  try {
    const admin = kafkaAdmin(env);
    await admin.connect();
    const prefix = env.TOPIC_PREFIX as string;
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (topics.length > 0) await admin.deleteTopics({ topics });
    const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g.startsWith(prefix));
    if (groups.length > 0) await admin.deleteGroups(groups).catch(() => undefined);
    await admin.disconnect();
  } catch (err) {
    problems.push(`kafka: ${(err as Error).message}`);
  }
  try {
    const redis = new Redis(env.REDIS_URL as string);
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${env.REDIS_PREFIX}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
    redis.disconnect();
  } catch (err) {
    problems.push(`redis: ${(err as Error).message}`);
  }
  if (problems.length > 0) process.stderr.write(`cleanup of ${env.TOPIC_PREFIX} incomplete: ${problems.join('; ')}\n`);
}

export const kafkaAdmin = (env: Record<string, string>): Admin =>
  bareKafka((env.KAFKA_BROKERS as string).split(',')).admin();

// Messages of a consumer group not yet consumed on a topic (0 when the group is caught up).
export async function consumerLag(admin: Admin, group: string, topic: string): Promise<number> {
  const ends = await admin.fetchTopicOffsets(topic);
  const committed = await admin.fetchOffsets({ groupId: group, topics: [topic] });
  const at = new Map((committed[0]?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
  return topicLag(
    ends.map((e) => ({
      partition: e.partition,
      committed: at.get(e.partition) ?? -1,
      low: Number(e.low),
      high: Number(e.high),
    })),
  );
}
