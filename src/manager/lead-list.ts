import type { Collection } from 'mongodb';
import { findByIds } from '../shared/mongo/bulk';
import type { LeadDoc } from '../shared/mongo/documents';
import { ENTRY_FIELDS, leadListPrefix } from '../shared/store/lead-list';
import { ListIndex, type ListEntryDoc } from '../shared/store/list-index';
import { leadSummary, type LeadSummary } from './lead-view';
import { listPage, timeRange, type CursorPage, type CursorRequest, type ScanBudget } from './pagination';
import { ALL_PARTNERS, inPartnerScope, partnersToRead, type PartnerScope } from './partner-scope';

// A row of the lead list: what a manager scans a list by, never personal data (the lead page
// shows the rest).
export type LeadRow = Pick<
  LeadSummary,
  'id' | 'affiliate_id' | 'external_id' | 'status' | 'is_depositor' | 'agent_id' | 'test' | 'created_at' | 'updated_at'
> & {
  country_code: string | null;
  source: string | null;
};

const ROW_PROJECTION = {
  _id: 1,
  partner_id: 1,
  external_id: 1,
  status: 1,
  is_depositor: 1,
  agent_id: 1,
  country_code: 1,
  source: 1,
  sub_id: 1,
  click_id: 1,
  test: 1,
  created_at: 1,
  updated_at: 1,
} as const;
type RowDoc = Pick<LeadDoc, keyof typeof ROW_PROJECTION>;
const projectionWith = (fields: readonly string[]): Record<string, 1> => ({
  ...ROW_PROJECTION,
  ...Object.fromEntries(fields.map((f) => [f, 1])),
});

export function leadRow(d: RowDoc): LeadRow {
  return {
    id: d._id,
    affiliate_id: d.partner_id,
    external_id: d.external_id,
    status: d.status,
    is_depositor: d.is_depositor,
    agent_id: d.agent_id,
    country_code: d.country_code ?? null,
    source: d.source ?? null,
    test: d.test === true,
    created_at: d.created_at,
    updated_at: d.updated_at,
  };
}

// How a page is read: `signal` gives up its reads, `scan` bounds its step of entries checked one by
// one (LIST_SCAN by default).
export interface ListReading {
  signal?: AbortSignal;
  scan?: ScanBudget;
}

export interface LeadListQuery {
  affiliate_id?: string;
  status?: string;
  country_code?: string;
  source?: string;
  sub_id?: string;
  click_id?: string;
  is_depositor?: boolean;
  from?: string; // created at or after (date-time)
  to?: string; // before
}

// The lead list and an agent's leads, read from the lead list's read model (lead_list): newest
// first; partner, status, depositors and agent are served by the entries' keys, country, source,
// sub_id and click_id are checked on the entries themselves (a rare one may give a short page with
// a next_cursor) and again on the lead (an entry listed before it carried a field has none).
export class LeadList {
  private readonly index: ListIndex;

  constructor(
    private readonly leads: Collection<LeadDoc>,
    leadList: Collection<ListEntryDoc>,
  ) {
    this.index = new ListIndex(leadList);
  }

  // A scoped page merges the views of each partner in scope (one range read per partner).
  page(q: LeadListQuery, req: CursorRequest, scope: PartnerScope = ALL_PARTNERS): Promise<CursorPage<LeadRow>> {
    return this.listed(q, req, scope, ROW_PROJECTION, leadRow);
  }

  // The same page with more of each lead's fields, read in the same read as its row (the partner's
  // view adds its masked phone and reason): each item is its row and those fields, read as `reading`
  // says (a partner waiting on the answer gives up its reads: boundedRead).
  pageWith<K extends keyof LeadDoc>(
    q: LeadListQuery,
    req: CursorRequest,
    scope: PartnerScope,
    fields: readonly K[],
    reading: ListReading = {},
  ): Promise<CursorPage<{ row: LeadRow; doc: Pick<LeadDoc, K> }>> {
    const view = (d: LeadDoc): { row: LeadRow; doc: Pick<LeadDoc, K> } => ({ row: leadRow(d), doc: d });
    return this.listed(q, req, scope, projectionWith(fields), view, reading);
  }

  // One lead's row and fields, by _id (a lead found through its partner's external id).
  async rowWith<K extends keyof LeadDoc>(
    id: string,
    fields: readonly K[],
    signal?: AbortSignal,
  ): Promise<{ row: LeadRow; doc: Pick<LeadDoc, K> } | null> {
    const doc = await this.leads.findOne({ _id: id }, { projection: projectionWith(fields), signal });
    return doc && { row: leadRow(doc), doc };
  }

  // Only the projection's fields of each lead are read.
  private listed<V>(
    q: LeadListQuery,
    req: CursorRequest,
    scope: PartnerScope,
    projection: Record<string, 1>,
    view: (d: LeadDoc) => V,
    { signal, scan }: ListReading = {},
  ): Promise<CursorPage<V>> {
    const wanted = scannedFilter(q);
    const scanned = Object.keys(wanted).length > 0;
    const keys = { status: q.status, isDepositor: q.is_depositor === true ? true : undefined };
    const partners = partnersToRead(scope, q.affiliate_id);
    return listPage(
      {
        index: this.index,
        query: {
          prefixes:
            partners === null
              ? [leadListPrefix(keys)]
              : partners.map((partnerId) => leadListPrefix({ ...keys, partnerId })),
          ...timeRange(q),
          order: 'desc',
        },
        load: (ids) => findByIds(this.leads, ids, { projection, signal }),
        signal,
        ...(scanned
          ? {
              keep: (e: ListEntryDoc) => Object.entries(wanted).every(([f, v]) => e[f] === undefined || e[f] === v),
              scan,
            }
          : {}),
        matches: (_e, d) =>
          (q.status === undefined || d.status === q.status) &&
          (q.is_depositor === undefined || d.is_depositor === q.is_depositor) &&
          (q.affiliate_id === undefined || d.partner_id === q.affiliate_id) &&
          Object.entries(wanted).every(([f, v]) => d[f as keyof LeadDoc] === v) &&
          inPartnerScope(scope, d.partner_id),
        view,
      },
      req,
    );
  }

  // The agents' view: the leads handed to one agent, newest first.
  agentPage(agentId: string, req: CursorRequest): Promise<CursorPage<LeadSummary>> {
    return listPage(
      {
        index: this.index,
        query: { prefixes: [leadListPrefix({ agentId })], order: 'desc' },
        load: (ids) => findByIds(this.leads, ids),
        matches: (_e, d) => d.agent_id === agentId,
        view: leadSummary,
      },
      req,
    );
  }
}

// The routing fields a query filters on (entry fields: lead_list entries carry them).
function scannedFilter(q: LeadListQuery): Partial<Record<(typeof ENTRY_FIELDS)[number], string>> {
  const wanted = { country_code: q.country_code, source: q.source, sub_id: q.sub_id, click_id: q.click_id };
  return Object.fromEntries(Object.entries(wanted).filter(([, v]) => v !== undefined));
}
