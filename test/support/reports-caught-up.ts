import type { Runtime } from '../../src/shared/runtime';
import { groupCaughtUp } from './group-caught-up';

// Every lead event and refusal published so far has been read into report deltas, and every delta
// then published counted into the counter documents, their offsets committed.
export async function reportsCaughtUp(rt: Runtime): Promise<void> {
  const prefix = rt.config.kafka.topicPrefix;
  const stages: [string, string[]][] = [
    [`${prefix}processor-reports`, [rt.topics.leadEvents, rt.topics.intakeRefusals]],
    [`${prefix}processor-report-cells`, [rt.topics.reportDeltas]],
  ];
  for (const [groupId, topics] of stages) await groupCaughtUp(rt, groupId, topics, 'the report projectors to catch up');
}
