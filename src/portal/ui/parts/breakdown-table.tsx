import { percent } from '../../../ui-kit/report/report-format';
import { ScrollTable } from '../../../ui-kit/ui';
import type { Totals } from '../types.generated';

// The overview's figures one row per source or country, largest first (the server's order).
export function BreakdownTable({ label, heading, rows }: { label: string; heading: string; rows: [string, Totals][] }) {
  return (
    <ScrollTable label={label}>
      <thead>
        <tr>
          <th scope="col">{heading}</th>
          {[
            'Received',
            'Accepted',
            'Rejected',
            'Duplicates',
            'Validation errors',
            'Contacted',
            'FTD',
            'FTD conversion',
            'Chargeback rate',
          ].map((h) => (
            <th key={h} scope="col" class="num">
              {h}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map(([name, t]) => (
          <tr key={name}>
            <th scope="row" class="wrap">
              {name}
            </th>
            {[
              t.received,
              t.accepted,
              t.rejected,
              t.duplicates,
              t.validation_errors,
              t.contacted,
              t.ftd,
              percent(t.ftd_rate),
              percent(t.chargeback_rate),
            ].map((v, i) => (
              <td key={i} class="num">
                {v}
              </td>
            ))}
          </tr>
        ))}
        {rows.length === 0 && (
          <tr>
            <td colSpan={10}>No leads in this period.</td>
          </tr>
        )}
      </tbody>
    </ScrollTable>
  );
}
