import { DispatcherCommands } from '../../src/dispatcher/commands';
import { ReplyConsumer } from '../../src/shared/kafka/reply-waiter';
import type { Runtime } from '../../src/shared/runtime';
import type { CallbackReply } from '../../src/shared/schemas';

// The manager's side of the dispatcher's commands, as the manager role builds it: it sends a command
// and waits for the owner's reply on callbacks.replies, as instance `name` (`replies`: stop it when done).
export async function managerSide(
  rt: Runtime,
  name: string,
): Promise<{ commands: DispatcherCommands; replies: ReplyConsumer }> {
  const consumer = new ReplyConsumer(rt.consumers, name, ['callbackReplies']);
  await consumer.start();
  const commands = new DispatcherCommands({
    deliveries: rt.mongo.collections.deliveries,
    deliveryList: rt.mongo.collections.deliveryList,
    producer: rt.producer,
    codec: rt.codec,
    topics: rt.topics,
    replies: consumer.waiter<CallbackReply>('callbackReplies'),
    replyTimeoutMs: 15_000,
  });
  return { commands, replies: consumer };
}
