import type { LeadDoc, PartnerDoc } from '../../shared/mongo/documents';
import type { CellStore } from '../../shared/reports/cell-store';
import type { LeadRefStore } from '../../shared/store/lead-refs';
import type { LeadList, LeadRow } from '../../manager/lead-list';
import type { CursorPage, CursorRequest, ScanBudget } from '../../manager/pagination';
import { readReport } from '../../manager/reports/report-reader';
import type { MaskedPhones } from '../../manager/workspace/masked-phones';
import { portalLeadRow, portalTotals } from './routes/portal-views';

// What a partner reads of its own leads and numbers, wherever it asks (the portal's pages, the
// partner API's reporting calls): the lead list and reports read models scoped to the partner,
// each lead masked as the portal shows it. Reads by _id or a read model's index only; a `signal`
// gives them up (a partner API request bounded by boundedRead).
export interface PartnerLeadQuery {
  status?: string;
  country?: string;
  source?: string;
  sub_id?: string;
  click_id?: string;
  external_id?: string;
  from?: string; // created at or after (date-time)
  to?: string; // before
}

export interface PartnerReadsDeps {
  leadList: Pick<LeadList, 'pageWith' | 'rowWith'>;
  refs: Pick<LeadRefStore, 'leadIdOf'>;
  phones: Pick<MaskedPhones, 'of'>;
  cells: CellStore;
  // The lead list's step of entries checked one by one (a country, a source, a sub_id, a click_id):
  // the partner API's is shorter than the portal's (LIST_SCAN), its calls waited on by a partner's tools.
  scan?: ScanBudget;
}

export type Partner = Pick<PartnerDoc, '_id' | 'status_mapping'>;
export type PartnerLeadRow = ReturnType<typeof portalLeadRow>;

// What a row adds to the manager's: its masked phone (opened from phone_enc) and its reason.
const EXTRA_FIELDS = ['_id', 'created_at', 'phone_enc', 'reason'] as const;
type Listed = { row: LeadRow; doc: Pick<LeadDoc, (typeof EXTRA_FIELDS)[number]> };

export class PartnerReads {
  constructor(private readonly d: PartnerReadsDeps) {}

  // A page of the partner's leads, newest first, each with its masked number and rejection reason.
  async leads(
    partner: Partner,
    q: PartnerLeadQuery,
    req: CursorRequest,
    signal?: AbortSignal,
  ): Promise<CursorPage<PartnerLeadRow>> {
    const page = await this.listed(partner._id, q, req, signal);
    const phones = await this.d.phones.of(
      page.items.map((i) => i.doc),
      signal,
    );
    return {
      items: page.items.map(({ row, doc }) =>
        portalLeadRow(row, { phone: phones.get(row.id) ?? null, reason: doc.reason ?? null }, partner),
      ),
      next_cursor: page.next_cursor,
    };
  }

  // The partner's traffic per day, its own reporting days (the manager's reports, scoped to it).
  async byDay(partnerId: string, range: { from?: string; to?: string }, now: Date, signal?: AbortSignal) {
    const report = await readReport(this.d.cells, { ...range, group_by: 'day' }, now, new Set([partnerId]), signal);
    return {
      from: report.from,
      to: report.to,
      totals: portalTotals(report.totals),
      by_day: report.rows.map((r) => ({ day: r.day as string, ...portalTotals(r) })),
    };
  }

  private async listed(
    partnerId: string,
    q: PartnerLeadQuery,
    req: CursorRequest,
    signal?: AbortSignal,
  ): Promise<CursorPage<Listed>> {
    if (q.external_id !== undefined) {
      // By the partner's own external id: its one lead (or none), through the status lookup's point reads.
      const leadId = await this.d.refs.leadIdOf(partnerId, q.external_id, signal);
      const found = leadId === null ? null : await this.d.leadList.rowWith(leadId, EXTRA_FIELDS, signal);
      return { items: found && found.row.affiliate_id === partnerId ? [found] : [], next_cursor: null };
    }
    const { country, ...rest } = q;
    const scope = new Set([partnerId]);
    return this.d.leadList.pageWith(
      { ...rest, affiliate_id: partnerId, country_code: country },
      req,
      scope,
      EXTRA_FIELDS,
      { signal, scan: this.d.scan },
    );
  }
}
