import type { Runtime } from '../../src/shared/runtime';
import type { IntakeCommand, IntakeReply } from '../../src/shared/schemas';
import { byPhone, produce } from './intake-commands';
import type { TopicProbe } from './topic-probe';

// One intake command through the real inbound topic, keyed by its phone's bucket as the ingress keys
// it (`key` for a command whose data key is stored rather than inline), and the processor's decision
// as its reply carries it.
export async function decisionOf(
  rt: Runtime,
  replies: TopicProbe<IntakeReply>,
  cmd: IntakeCommand,
  key: (cmd: object) => string = byPhone(rt),
): Promise<IntakeReply['decision']> {
  await produce(rt, 'intakeCommands', [cmd], key);
  const rs = await replies.waitFor((all) => all.some((r) => r.correlation_id === cmd.correlation_id));
  return rs.find((r) => r.correlation_id === cmd.correlation_id)!.decision;
}
