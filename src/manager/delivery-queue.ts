import type { Collection } from 'mongodb';
import { findByIds } from '../shared/mongo/bulk';
import type { DeliveryDoc } from '../shared/mongo/documents';
import { kindOf, type DeliveryKind } from '../shared/delivery-kind';
import { deliveryListPrefixes } from '../shared/store/delivery-list';
import { ListIndex, type ListEntryDoc } from '../shared/store/list-index';
import { listPage, timeRange, type CursorPage, type CursorRequest } from './pagination';

export type DeliveryView = Omit<DeliveryDoc, '_id' | 'event_name' | 'partner_id' | 'event' | 'kind'> & {
  id: string;
  kind: DeliveryKind;
  event: string;
  affiliate_id: string;
  test: boolean;
};

// The delivery queue as managers see it (spec 6.3); held_by appears while a delivery waits for an
// earlier one of its lead; test marks a sandbox partner's lead (its event says so).
export function deliveryView(doc: DeliveryDoc): DeliveryView {
  const { _id, event_name, partner_id, event, kind, ...rest } = doc;
  return { id: _id, kind: kindOf({ kind }), event: event_name, affiliate_id: partner_id, ...rest, test: event.test === true };
}

export interface DeliveryFilter {
  state?: DeliveryDoc['state'];
  affiliate_id?: string;
  event?: string;
  from?: string; // the record was created at or after (date-time)
  to?: string; // before
}

// The queue read from its list read model (delivery_list): any filter, any depth, a page costs a
// few _id range reads and one read of its records by _id.
export class DeliveryQueue {
  private readonly list: ListIndex;

  constructor(private readonly deliveries: Collection<DeliveryDoc>, deliveryList: Collection<ListEntryDoc>) {
    this.list = new ListIndex(deliveryList);
  }

  page(filter: DeliveryFilter, page: CursorRequest): Promise<CursorPage<DeliveryView>> {
    return listPage({
      index: this.list,
      query: {
        prefixes: deliveryListPrefixes({ state: filter.state, partnerId: filter.affiliate_id, event: filter.event }),
        ...timeRange(filter),
        order: 'desc',
      },
      load: (ids) => findByIds(this.deliveries, ids),
      // An entry by state names the state its record had when written.
      matches: (entry, doc) => entry.state === undefined || entry.state === doc.state,
      view: deliveryView,
    }, page);
  }

  async find(id: string): Promise<DeliveryView | null> {
    const doc = await this.deliveries.findOne({ _id: id });
    return doc && deliveryView(doc);
  }
}
