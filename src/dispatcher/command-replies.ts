import { randomId } from '../shared/ids';
import type { PendingReply, ReplyWaiter } from '../shared/kafka/reply-waiter';
import type { CallbackReply } from '../shared/schemas';
import type { DeliveryTopicsDeps } from './delivery-topics';

// The manager's side of request/reply with the dispatcher: a command carries where its reply is to
// go (this instance, and a correlation id), and the request waits for the owner's reply on
// callbacks.replies (src/shared/kafka/reply-waiter.ts).

export interface CommandChannel extends DeliveryTopicsDeps {
  replies: ReplyWaiter<CallbackReply>;
  // How long a manager's request waits for the owner's reply; the command stands after that.
  replyTimeoutMs: number;
}

export type ReplyAddress = { reply_to: string; correlation_id: string };

// Where a command's reply is to go, registered before the command is sent.
function expectReply(
  channel: CommandChannel,
  timeoutMs?: number,
): { address: ReplyAddress; pending: PendingReply<CallbackReply> } {
  const correlationId = randomId('cr');
  const pending = channel.replies.expect(correlationId, timeoutMs ?? channel.replyTimeoutMs);
  return { address: { reply_to: channel.replies.instanceId, correlation_id: correlationId }, pending };
}

// Commands sent in one publish, and their owners' replies (null: none in time).
export async function askAll(
  channel: CommandChannel,
  count: number,
  send: (addresses: ReplyAddress[]) => Promise<unknown>,
  timeoutMs?: number,
): Promise<(CallbackReply | null)[]> {
  const asked = Array.from({ length: count }, () => expectReply(channel, timeoutMs));
  try {
    await send(asked.map((a) => a.address));
  } catch (err) {
    for (const a of asked) a.pending.cancel();
    throw err;
  }
  return Promise.all(asked.map((a) => a.pending.reply));
}

export async function ask(
  channel: CommandChannel,
  send: (address: ReplyAddress) => Promise<void>,
  timeoutMs?: number,
): Promise<CallbackReply | null> {
  const [reply] = await askAll(channel, 1, ([address]) => send(address!), timeoutMs);
  return reply ?? null;
}
