import type { Producer } from 'kafkajs';
import type { Collection } from 'mongodb';
import type { TopicCodec } from '../shared/kafka/codec';
import type { TopicNames } from '../shared/kafka/topics';
import type { DeliveryDoc } from '../shared/mongo/documents';
import { ListIndex, type ListEntryDoc } from '../shared/store/list-index';
import { DeliveryStore } from './delivery-store';
import { DeliveryTopics } from './delivery-task';
import { retrySchedule } from './retry-policy';

// The dispatcher's public face (STYLE rule 15): what other roles may ask of it. Changes to a
// delivery go to the dispatcher that owns its lead, as commands on callbacks.commands keyed by lead
// id; the few pieces of the callback path that the manager's test callback reuses are re-exported.
export { buildCallbackPayload } from './callback-payload';
export { sendCallback } from './callback-sender';
export { classifyAttempt } from './retry-policy';
export { EndpointCommands, type ReplayRequest } from './endpoint-commands';
export type { EndpointHealthView } from './endpoint-health';

export type RetryOutcome = { outcome: 'requeued'; delivery: DeliveryDoc } | { outcome: 'not_found' } | { outcome: 'not_dead' };

export interface DispatcherCommandsDeps {
  deliveries: Collection<DeliveryDoc>;
  deliveryList: Collection<ListEntryDoc>;
  producer: Producer;
  codec: TopicCodec;
  topics: TopicNames;
  retryDelaysS: readonly number[];
}

export class DispatcherCommands {
  private readonly store: DeliveryStore;
  private readonly publish: DeliveryTopics;
  private readonly maxAttempts: number;

  constructor(deps: DispatcherCommandsDeps) {
    this.store = new DeliveryStore(deps.deliveries, new ListIndex(deps.deliveryList));
    this.publish = new DeliveryTopics(deps);
    this.maxAttempts = retrySchedule(deps.retryDelaysS).maxAttempts;
  }

  // A manager's retry of a dead delivery (spec 6.3): a fresh round of attempts, recorded in
  // manual_retries. The command goes first, so the owner applies it even if this process dies
  // now; the record is then requeued here too, so the answer (and a second request) sees it at
  // once. The owner attempts a round only once, whoever requeued it (the entry carries `at`).
  async retry(deliveryId: string, by: string): Promise<RetryOutcome> {
    const doc = await this.store.get(deliveryId);
    if (!doc) return { outcome: 'not_found' };
    if (doc.state !== 'dead') return { outcome: 'not_dead' };
    const at = new Date();
    await this.publish.command({ kind: 'retry', delivery_id: doc._id, lead_id: doc.lead_id, partner_id: doc.partner_id, at: at.toISOString(), by });
    const requeued = await this.store.requeue(doc._id, ['dead'], this.maxAttempts, by, at);
    if (requeued) return { outcome: 'requeued', delivery: requeued };
    // The owner may have applied the command first.
    const now = await this.store.get(deliveryId);
    const last = now?.manual_retries[now.manual_retries.length - 1];
    return now && last?.at.getTime() === at.getTime() && last.by === by ? { outcome: 'requeued', delivery: now } : { outcome: 'not_dead' };
  }

  // Every dead delivery of one partner; returns how many were requeued.
  async retryDead(partnerId: string, by: string): Promise<number> {
    let requeued = 0;
    for await (const id of this.store.deadIds(partnerId)) {
      if ((await this.retry(id, by)).outcome === 'requeued') requeued++;
    }
    return requeued;
  }
}
