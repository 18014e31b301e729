import type { Filter } from 'mongodb';
import type { DeliveryDoc } from '../shared/mongo/documents';
import type { Runtime } from '../shared/runtime';
import { findPage, type Page, type PageRequest } from './pagination';

export interface DeliveryView {
  id: string;
  event: string;
  event_id: string;
  affiliate_id: string;
  lead_id: string;
  state: DeliveryDoc['state'];
  attempts_made: number;
  attempts_left: number;
  next_attempt_at: Date | null;
  last_http_status: number | null;
  last_response_body: string | null;
  last_error: string | null;
  attempts: DeliveryDoc['attempts'];
  manual_retries: DeliveryDoc['manual_retries'];
  created_at: Date;
  updated_at: Date;
}

// The delivery queue as managers see it (spec 6.3): the dispatcher's lease is internal bookkeeping.
export function deliveryView(doc: DeliveryDoc): DeliveryView {
  return {
    id: doc._id,
    event: doc.event_name,
    event_id: doc.event_id,
    affiliate_id: doc.partner_id,
    lead_id: doc.lead_id,
    state: doc.state,
    attempts_made: doc.attempts_made,
    attempts_left: doc.attempts_left,
    next_attempt_at: doc.next_attempt_at,
    last_http_status: doc.last_http_status,
    last_response_body: doc.last_response_body,
    last_error: doc.last_error,
    attempts: doc.attempts,
    manual_retries: doc.manual_retries,
    created_at: doc.created_at,
    updated_at: doc.updated_at,
  };
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
