import type { Role } from '../config';
import { RETRY_TIERS, type TopicNames } from './topics';

export interface GroupTopics {
  group: string;
  topics: readonly string[];
}

// The committing consumer groups each role runs, for the lag gauge. The ingress' reply consumer is
// left out: its group is per instance and commits nothing, so it has no lag to speak of.
const GROUPS: Record<Role, (t: TopicNames) => { group: string; topics: string[] }[]> = {
  ingress: () => [],
  processor: (t) => [
    { group: 'processor-intake', topics: [t.intakeCommands] },
    { group: 'processor-crm', topics: [t.agentActions, t.deposits] },
    { group: 'processor-reports', topics: [t.leadEvents, t.intakeRefusals] },
    { group: 'processor-report-cells', topics: [t.reportDeltas] },
  ],
  dispatcher: (t) => [
    { group: 'dispatcher', topics: [t.leadEvents, t.callbackCommands, ...RETRY_TIERS.map((k) => t[k])] },
    { group: 'dispatcher-endpoints', topics: [t.endpointCommands] },
  ],
};

export function consumerGroupsOf(roles: readonly Role[], topicPrefix: string, topics: TopicNames): GroupTopics[] {
  return roles.flatMap((role) => GROUPS[role](topics).map((g) => ({ ...g, group: `${topicPrefix}${g.group}` })));
}
