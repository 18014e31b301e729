import type { Runtime } from '../../src/shared/runtime';
import { until } from './topic-probe';

// Every lead event and refusal published so far has been counted and its offset committed.
export async function reportsCaughtUp(rt: Runtime): Promise<void> {
  const groupId = `${rt.config.kafka.topicPrefix}processor-reports`;
  await until(
    async () => {
      for (const topic of [rt.topics.leadEvents, rt.topics.intakeRefusals]) {
        const ends = await rt.admin.fetchTopicOffsets(topic);
        const [committed] = await rt.admin.fetchOffsets({ groupId, topics: [topic] });
        for (const end of ends) {
          const at = Number(committed?.partitions.find((p) => p.partition === end.partition)?.offset ?? -1);
          if (Number(end.high) > 0 && at < Number(end.high)) return false;
        }
      }
      return true;
    },
    45000,
    'the report projector to catch up',
  );
}
