import type { Filter } from 'mongodb';
import type { DeliveryDoc } from '../shared/mongo/documents';
import type { Runtime } from '../shared/runtime';
import { findPage, type Page, type PageRequest } from './pagination';

export type DeliveryView = Omit<DeliveryDoc, '_id' | 'event_name' | 'partner_id' | 'event'> & {
  id: string;
  event: string;
  affiliate_id: string;
  test: boolean;
};

// The delivery queue as managers see it (spec 6.3); held_by appears while a delivery waits for an
// earlier one of its lead; test marks a sandbox partner's lead (its event says so).
export function deliveryView(doc: DeliveryDoc): DeliveryView {
  const { _id, event_name, partner_id, event, ...rest } = doc;
  return { id: _id, event: event_name, affiliate_id: partner_id, ...rest, test: event.test === true };
}

export interface DeliveryFilter {
  state?: DeliveryDoc['state'];
  affiliate_id?: string;
  event?: string;
}

export async function listDeliveries(rt: Runtime, filter: DeliveryFilter, page: PageRequest): Promise<Page<DeliveryView>> {
  const query: Filter<DeliveryDoc> = {};
  if (filter.state) query.state = filter.state;
  if (filter.affiliate_id) query.partner_id = filter.affiliate_id;
  if (filter.event) query.event_name = filter.event;
  return findPage(rt.mongo.collections.deliveries, query, page, deliveryView);
}

export async function findDelivery(rt: Runtime, id: string): Promise<DeliveryView | null> {
  const doc = await rt.mongo.collections.deliveries.findOne({ _id: id });
  return doc && deliveryView(doc);
}
