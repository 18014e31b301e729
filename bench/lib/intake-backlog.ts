import { consumerGroupsOf } from '../../src/shared/kafka/consumer-groups';
import { loadTopicSpecs, topicNames } from '../../src/shared/kafka/topics';
import { sleep } from './env';
import type { IntakeMode } from './intake-tables';
import { consumerLag, kafkaAdmin } from './setup';

// Waits until the processor (or stand-in) has consumed every command; returns what is left.
export async function drain(env: Record<string, string>, mode: IntakeMode, maxS: number): Promise<number | null> {
  const prefix = env.TOPIC_PREFIX as string;
  const topics = topicNames(loadTopicSpecs(prefix));
  const topic = topics.intakeCommands;
  const group =
    mode !== 'ingress'
      ? consumerGroupsOf(['processor'], prefix, topics).find((g) => g.topics.includes(topic))?.group
      : `${prefix}bench-stand-in`;
  if (!group) throw new Error(`no processor consumer group reads ${topic}`);
  const deadline = Date.now() + maxS * 1000;
  const admin = kafkaAdmin(env);
  try {
    await admin.connect();
    for (;;) {
      const lag = await consumerLag(admin, group, topic);
      if (lag === 0 || Date.now() > deadline) return lag;
      await sleep(500);
    }
  } catch {
    return null;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
