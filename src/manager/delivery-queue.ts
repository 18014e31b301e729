import type { Collection } from 'mongodb';
import { findByIds } from '../shared/mongo/bulk';
import type { DeliveryDoc } from '../shared/mongo/documents';
import { kindOf, type DeliveryKind } from '../shared/delivery-kind';
import { deliveryListPrefixes } from '../shared/store/delivery-list';
import { ListIndex, type ListEntryDoc } from '../shared/store/list-index';
import { listPage, timeRange, type CursorPage, type CursorRequest } from './pagination';
import { ALL_PARTNERS, inPartnerScope, partnersToRead, type PartnerScope } from './partner-scope';

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
  return {
    id: _id,
    kind: kindOf({ kind }),
    event: event_name,
    affiliate_id: partner_id,
    ...rest,
    test: event.test === true,
  };
}

export interface DeliveryFilter {
  state?: DeliveryDoc['state'];
  affiliate_id?: string;
  event?: string;
  kind?: DeliveryKind; // checked on the records read (no entry is keyed by it)
  from?: string; // the record was created at or after (date-time)
  to?: string; // before
}

// The queue read from its list read model (delivery_list): any filter, any depth, a page costs a
// few _id range reads and one read of its records by _id.
export class DeliveryQueue {
  private readonly list: ListIndex;

  constructor(
    private readonly deliveries: Collection<DeliveryDoc>,
    deliveryList: Collection<ListEntryDoc>,
  ) {
    this.list = new ListIndex(deliveryList);
  }

  // A scoped page merges the views of each partner in scope (one range read per partner and event).
  page(
    filter: DeliveryFilter,
    page: CursorRequest,
    scope: PartnerScope = ALL_PARTNERS,
  ): Promise<CursorPage<DeliveryView>> {
    const { state, event } = filter;
    const partners = partnersToRead(scope, filter.affiliate_id);
    return listPage(
      {
        index: this.list,
        query: {
          prefixes:
            partners === null
              ? deliveryListPrefixes({ state, event })
              : partners.flatMap((partnerId) => deliveryListPrefixes({ state, partnerId, event })),
          ...timeRange(filter),
          order: 'desc',
        },
        load: (ids) => findByIds(this.deliveries, ids),
        // An entry by state names the state its record had when written.
        matches: (entry, doc) =>
          (entry.state === undefined || entry.state === doc.state) &&
          inPartnerScope(scope, doc.partner_id) &&
          (filter.kind === undefined || kindOf(doc) === filter.kind),
        view: deliveryView,
      },
      page,
    );
  }

  // A delivery of a partner outside the scope is not found.
  async find(id: string, scope: PartnerScope = ALL_PARTNERS): Promise<DeliveryView | null> {
    const doc = await this.deliveries.findOne({ _id: id });
    return doc && inPartnerScope(scope, doc.partner_id) ? deliveryView(doc) : null;
  }
}
