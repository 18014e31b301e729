import type { Runtime } from '../../src/shared/runtime';
import { until } from './topic-probe';

// A consumer group has read and committed everything published so far on its topics.
export async function groupCaughtUp(
  rt: Runtime,
  groupId: string,
  topics: readonly string[],
  what: string,
  timeoutMs = 45000,
): Promise<void> {
  await until(
    async () => {
      for (const topic of topics) {
        const ends = await rt.admin.fetchTopicOffsets(topic);
        const [committed] = await rt.admin.fetchOffsets({ groupId, topics: [topic] });
        for (const end of ends) {
          const at = Number(committed?.partitions.find((p) => p.partition === end.partition)?.offset ?? -1);
          if (Number(end.high) > 0 && at < Number(end.high)) return false;
        }
      }
      return true;
    },
    timeoutMs,
    what,
  );
}
