import type { Collection } from 'mongodb';
import { findByIds } from '../shared/mongo/bulk';
import type { DeliveryDoc } from '../shared/mongo/delivery-doc';
import type { CallbackReply, DeliveryCommand } from '../shared/schemas';
import { deliveryListPrefixes } from '../shared/store/delivery-list';
import { ListIndex, type ListEntryDoc } from '../shared/store/list-index';
import { askAll, ask, type CommandChannel, type ReplyAddress } from './command-replies';
import { DeliveryTopics } from './delivery-topics';
import { systemClock, type Clock } from '../shared/clock';

// The dispatcher's public face (CONTRIBUTING.md, Layout): the commands other roles may send it. Only the
// dispatcher writes deliveries, endpoint health and replay jobs; a manager reads them by _id and
// asks for changes as commands to their one owner (keyed by lead id on callbacks.commands, by
// partner id on callbacks.endpoints), waiting for the owner's reply on callbacks.replies where its
// answer depends on the outcome.
export { EndpointCommands, type ReplayRequest, type ReplayOutcome } from './endpoint-commands';
export type { EndpointHealthView } from './endpoint-health';
export type { TestCallbackResult } from './test-callback';
export type { CommandChannel } from './command-replies';
// Which addresses a callback may reach: also what a partner's new callback URL is checked by when it names an IP.
export { refusedAddressRange } from './delivery-wire/address-guard';
// The callbacks' wire and retry policy, for another signed send that is retried like a callback (an
// alert's webhook): the same signature, guards and timeout, the same verdicts and schedule.
export { sendSigned, wireRules, type SendSignedOptions } from './delivery-wire';
export { classifyAttempt, decideAfterAttempt, retrySchedule, type AttemptResult } from './retry-policy';

// Retry commands published, and waited for, at a time by a retry of every dead delivery.
const RETRY_CHUNK = 200;

export type RetryOutcome =
  | { outcome: 'requeued'; delivery: DeliveryDoc } // dates as ISO strings when it comes from the owner's reply
  | { outcome: 'not_found' }
  | { outcome: 'not_dead' }
  | { outcome: 'pending' }; // no reply in time: the owner applies the command when it can

export interface DispatcherCommandsDeps extends CommandChannel {
  clock?: Clock; // when a manager's retry was asked for (the system's unless a test gives its own)
  deliveries: Collection<DeliveryDoc>;
  deliveryList: Collection<ListEntryDoc>;
}

export class DispatcherCommands {
  private readonly publish: DeliveryTopics;
  private readonly list: ListIndex;

  constructor(private readonly deps: DispatcherCommandsDeps) {
    this.publish = new DeliveryTopics(deps);
    this.list = new ListIndex(deps.deliveryList);
  }

  // A manager's retry of a dead delivery (spec 6.3): a fresh round of attempts, recorded in
  // manual_retries by the lead's owner, which answers once the record is requeued.
  async retry(deliveryId: string, by: string): Promise<RetryOutcome> {
    const doc = await this.deps.deliveries.findOne({ _id: deliveryId });
    if (!doc) return { outcome: 'not_found' };
    if (doc.state !== 'dead') return { outcome: 'not_dead' };
    const reply = await ask(this.deps, (address) => this.publish.command(this.retryCommand(doc, by, address)));
    return this.outcomeOf(deliveryId, reply);
  }

  // Every dead delivery of one partner (read from the delivery list), in chunks: how many were
  // requeued, and how many commands had no reply in time (they are applied when the owner can).
  async retryDead(partnerId: string, by: string): Promise<{ requeued: number; pending: number }> {
    const counts = { requeued: 0, pending: 0 };
    let refs: string[] = [];
    const flush = async () => {
      // A chunk's records in one read by _id; an entry whose record is no longer dead is stale.
      const dead = [...(await findByIds(this.deps.deliveries, refs)).values()].filter((doc) => doc.state === 'dead');
      for (const o of await this.retryChunk(dead, by)) if (o === 'requeued' || o === 'pending') counts[o]++;
      refs = [];
    };
    for await (const entry of this.list.all({
      prefixes: deliveryListPrefixes({ state: 'dead', partnerId }),
      order: 'asc',
    })) {
      refs.push(entry.ref);
      if (refs.length >= RETRY_CHUNK) await flush();
    }
    if (refs.length > 0) await flush();
    return counts;
  }

  private async retryChunk(
    docs: readonly DeliveryDoc[],
    by: string,
  ): Promise<(CallbackReply['outcome'] | 'pending')[]> {
    const replies = await askAll(this.deps, docs.length, (addresses) =>
      this.publish.commands(docs.map((doc, i) => this.retryCommand(doc, by, addresses[i]!))),
    );
    return replies.map((r) => r?.outcome ?? 'pending');
  }

  private retryCommand(doc: DeliveryDoc, by: string, address: ReplyAddress): DeliveryCommand {
    return {
      kind: 'retry',
      delivery_id: doc._id,
      lead_id: doc.lead_id,
      partner_id: doc.partner_id,
      at: (this.deps.clock ?? systemClock).now().toISOString(),
      by,
      ...address,
    };
  }

  private async outcomeOf(deliveryId: string, reply: CallbackReply | null): Promise<RetryOutcome> {
    if (!reply) return { outcome: 'pending' };
    if (reply.outcome !== 'requeued') return { outcome: reply.outcome === 'not_found' ? 'not_found' : 'not_dead' };
    // The record as the owner requeued it (a read now might find the round's first attempt made).
    if (reply.delivery) return { outcome: 'requeued', delivery: reply.delivery as unknown as DeliveryDoc };
    const delivery = await this.deps.deliveries.findOne({ _id: deliveryId });
    return delivery ? { outcome: 'requeued', delivery } : { outcome: 'not_found' };
  }
}
