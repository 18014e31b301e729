import { href } from '../../../ui-kit/router';
import { ScrollTable } from '../../../ui-kit/ui';
import { addDays, medianTime, percent, rejectionReasons, zoneMidnight } from '../../../ui-kit/report/report-format';
import type { Dimension, Figures, Report, ReportRow } from '../../../ui-kit/report/report-types';

export interface PartnerInfo {
  name: string;
  time_zone: string | null;
}

const DIMENSION_HEADINGS: Record<Dimension, string> = {
  partner: 'Partner',
  country: 'Country',
  source: 'Source',
  day: 'Day',
};
const FIGURE_HEADINGS = [
  'Received',
  'Accepted',
  'Rejected',
  'Duplicates',
  'Validation errors',
  'Contacted',
  'FTD',
  'RTD',
  'Chargebacks',
  'Accepted share',
  'Contact rate',
  'FTD conversion',
  'Chargeback rate',
  'Median to contact',
  'Median to FTD',
];

function figureCells(f: Figures) {
  const reasons = rejectionReasons(f);
  return [
    f.received,
    f.accepted,
    <>
      {f.rejected}
      {reasons && <span class="muted small"> ({reasons})</span>}
    </>,
    f.duplicates,
    f.validation_errors,
    f.contacted,
    f.ftd,
    f.rtd,
    f.chargebacks,
    percent(f.accepted_share),
    percent(f.contact_rate),
    percent(f.ftd_conversion),
    percent(f.chargeback_rate),
    medianTime(f.median_seconds_to_contact),
    medianTime(f.median_seconds_to_ftd),
  ].map((v, i) => (
    <td key={i} class="num">
      {v}
    </td>
  ));
}

// The lead list of a row: its partner, country and source, over the row's days in the partner's
// zone (the lead list's times are UTC instants).
function leadsOf(row: ReportRow, report: Report, partner: PartnerInfo | undefined): string {
  const zone = partner?.time_zone ?? 'UTC';
  const first = row.day ?? report.from;
  const last = row.day ?? report.to;
  const utc = (d: Date) => d.toISOString().slice(0, 19);
  return href('leads', {
    affiliate_id: row.partner_id,
    country_code: row.country ?? undefined,
    source: row.source ?? undefined,
    from: utc(zoneMidnight(first, zone)),
    to: utc(zoneMidnight(addDays(last, 1), zone)),
  });
}

export function ReportTable({ report, partners }: { report: Report; partners: ReadonlyMap<string, PartnerInfo> }) {
  const dims = report.group_by;
  const cellOf = (row: ReportRow, d: Dimension) => {
    if (d !== 'partner') {
      const value = d === 'country' ? row.country : d === 'source' ? row.source : row.day;
      return (
        <td key={d} class={d === 'source' ? 'wrap' : 'nowrap'}>
          {value ?? '—'}
        </td>
      );
    }
    const partner = partners.get(row.partner_id!);
    return (
      <td key={d}>
        <a
          href={leadsOf(row, report, partner)}
          aria-label={`Leads of ${partner?.name ?? row.partner_id}${row.day ? ` on ${row.day}` : ''}`}
        >
          {partner?.name ?? row.partner_id}
        </a>
        {partner && <div class="mono muted small">{row.partner_id}</div>}
      </td>
    );
  };
  return (
    <ScrollTable label="Report">
      <thead>
        <tr>
          {dims.map((d) => (
            <th key={d} scope="col">
              {DIMENSION_HEADINGS[d]}
            </th>
          ))}
          {FIGURE_HEADINGS.map((h) => (
            <th key={h} scope="col" class="num">
              {h}
            </th>
          ))}
        </tr>
      </thead>
      {dims.length > 0 && (
        <tbody>
          {report.rows.map((row, i) => (
            <tr key={i}>
              {dims.map((d) => cellOf(row, d))}
              {figureCells(row)}
            </tr>
          ))}
          {report.rows.length === 0 && (
            <tr>
              <td colSpan={dims.length + FIGURE_HEADINGS.length}>Nothing in these days.</td>
            </tr>
          )}
        </tbody>
      )}
      <tfoot>
        <tr class="total">
          {dims.length > 0 && (
            <th scope="row" colSpan={dims.length}>
              Total
            </th>
          )}
          {figureCells(report.totals)}
        </tr>
      </tfoot>
    </ScrollTable>
  );
}
