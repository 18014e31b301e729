import type { Runtime } from '../../src/shared/runtime';
import type { IntakeCommand, IntakeReply } from '../../src/shared/schemas';
import { produce } from './intake-commands';
import type { TopicProbe } from './topic-probe';

// One intake command through the real inbound topic, keyed by its phone hash as the ingress keys it,
// and the processor's decision as its reply carries it.
export async function decisionOf(
  rt: Runtime,
  replies: TopicProbe<IntakeReply>,
  cmd: IntakeCommand,
): Promise<IntakeReply['decision']> {
  await produce(rt, 'intakeCommands', [cmd], () => cmd.lead.phone_hash);
  const rs = await replies.waitFor((all) => all.some((r) => r.correlation_id === cmd.correlation_id));
  return rs.find((r) => r.correlation_id === cmd.correlation_id)!.decision;
}
