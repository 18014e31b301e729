import type { Runtime } from '../../src/shared/runtime';
import { until } from './topic-probe';

// Every lead event and refusal published so far has been read into report deltas, and every delta
// then published counted into the counter documents, their offsets committed.
export async function reportsCaughtUp(rt: Runtime): Promise<void> {
  const prefix = rt.config.kafka.topicPrefix;
  const stages: [string, string[]][] = [
    [`${prefix}processor-reports`, [rt.topics.leadEvents, rt.topics.intakeRefusals]],
    [`${prefix}processor-report-cells`, [rt.topics.reportDeltas]],
  ];
  for (const [groupId, topics] of stages) {
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
      45000,
      'the report projectors to catch up',
    );
  }
}
