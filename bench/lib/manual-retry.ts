import { DispatcherCommands } from '../../src/dispatcher/commands';
import { deliveryId } from '../../src/shared/ids';
import type { Runtime } from '../../src/shared/runtime';
import { ReplyWaiter } from '../../src/shared/kafka/reply-waiter';
import type { CallbackReply, LeadEvent } from '../../src/shared/schemas';
import { waitForArrivals } from './arrivals';
import { sleep } from './env';
import type { Helper } from './roles';
import { summarise, type Summary } from './stats';

export interface ManualRetryResult {
  deliveries: number;
  attempted: number;
  latencyMs: Summary; // from the manager's retry call to the attempt's arrival at the partner
}

// A manager's retry of a dead delivery, as the manager API makes it (DispatcherCommands.retry), one
// delivery at a time, each once every earlier one arrived: how long from the call to the attempt
// reaching the partner. `events` belong to a partner whose endpoint refuses every attempt the
// schedule makes (`attempts` of them) and accepts the next.
export async function measureManualRetries(
  rt: Runtime,
  receiver: Helper,
  path: string,
  partnerId: string,
  events: readonly LeadEvent[],
  retryDelaysS: readonly number[],
): Promise<ManualRetryResult> {
  const ids = events.map((e) => deliveryId(e.event_id, partnerId));
  const waitS = retryDelaysS.reduce((a, b) => a + b, 0) + 30;
  for (const deadline = Date.now() + waitS * 1000; ;) {
    const dead = await rt.mongo.collections.deliveries.countDocuments({ _id: { $in: ids }, state: 'dead' });
    if (dead === ids.length || Date.now() > deadline) break;
    await sleep(250);
  }
  const replies = new ReplyWaiter<CallbackReply>(rt.consumers, 'callbackReplies', `bench-manager-${process.pid}`);
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
  const latencies: number[] = [];
  for (const [i, id] of ids.entries()) {
    const lead = (events[i] as LeadEvent).lead_id;
    const at = Date.now();
    if ((await commands.retry(id, 'bench')).outcome !== 'requeued') continue;
    const arrivals = await waitForArrivals(
      receiver,
      (all) => all.some((a) => a.path === path && a.lead === lead && a.status === 200),
      at + 10_000,
      5,
    );
    const got = arrivals.find((a) => a.path === path && a.lead === lead && a.status === 200);
    if (got) latencies.push(got.t - at);
  }
  await replies.stop();
  return { deliveries: ids.length, attempted: latencies.length, latencyMs: summarise(latencies) };
}
