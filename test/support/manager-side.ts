import { DispatcherCommands } from '../../src/dispatcher/commands';
import { ReplyWaiter } from '../../src/shared/kafka/reply-waiter';
import type { Runtime } from '../../src/shared/runtime';
import type { CallbackReply } from '../../src/shared/schemas';

// The manager's side of the dispatcher's commands, as the manager role builds it: it sends a command
// and waits for the owner's reply on callbacks.replies, as instance `name`.
export async function managerSide(
  rt: Runtime,
  name: string,
): Promise<{ commands: DispatcherCommands; replies: ReplyWaiter<CallbackReply> }> {
  const replies = new ReplyWaiter<CallbackReply>(rt.consumers, 'callbackReplies', name);
  await replies.start();
  const commands = new DispatcherCommands({
    deliveries: rt.mongo.collections.deliveries,
    deliveryList: rt.mongo.collections.deliveryList,
    producer: rt.producer,
    codec: rt.codec,
    topics: rt.topics,
    replies,
    replyTimeoutMs: 15_000,
  });
  return { commands, replies };
}
