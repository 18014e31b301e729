// The answer of GET /api/reports (src/manager/reports/report-schemas.ts), as the page reads it.
export const DIMENSIONS = ['partner', 'country', 'source', 'day'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

export const REJECTION_GROUPS = ['country', 'source', 'ip', 'risk', 'cap', 'other'] as const;

export interface Figures {
  received: number;
  accepted: number;
  duplicates: number;
  validation_errors: number;
  rejected: number;
  rejected_by_reason: Record<(typeof REJECTION_GROUPS)[number], number>;
  contacted: number;
  ftd: number;
  rtd: number;
  chargebacks: number;
  accepted_share: number | null;
  contact_rate: number | null;
  ftd_conversion: number | null;
  chargeback_rate: number | null;
  median_seconds_to_contact: number | null;
  median_seconds_to_ftd: number | null;
}

export interface ReportRow extends Figures {
  partner_id?: string;
  country?: string | null;
  source?: string | null;
  day?: string;
}

export interface Report {
  from: string;
  to: string;
  group_by: Dimension[];
  rows: ReportRow[];
  totals: Figures;
}
