import { DayTrend } from '../../../ui-kit/report/day-trend';
import { percent } from '../../../ui-kit/report/report-format';
import { href } from '../../../ui-kit/router';
import { ErrorNote, PageHeading, useLoad } from '../../../ui-kit/ui';
import type { Api } from '../../../ui-kit/api';
import { BreakdownTable } from '../parts/breakdown-table';
import { CapTable } from '../parts/cap-table';
import { DayRange } from '../parts/day-range';
import type { Overview, Totals } from '../types.generated';

const PERIODS = [
  [1, 'Today'],
  [7, '7 days'],
  [30, '30 days'],
] as const;

// The partner's own traffic today, over 7 or 30 days or the days it chooses: the figures, rejections by reason, a bar per
// day, by source and by country, and the same as CSV (cells safe to open in a spreadsheet).
export function OverviewPage({ api, params }: { api: Api; params: URLSearchParams }) {
  const days = PERIODS.find(([d]) => String(d) === params.get('days'))?.[0] ?? 7;
  const chosen = params.get('from') && params.get('to') ? { from: params.get('from')!, to: params.get('to')! } : null;
  const q = chosen ? `from=${chosen.from}&to=${chosen.to}` : `days=${days}`;
  const overview = useLoad(() => api.get<Overview>(`/portal/api/overview?${q}`), [q]);
  const o = overview.data;
  return (
    <section>
      <PageHeading>Overview</PageHeading>
      <nav class="tabs" aria-label="Period">
        {PERIODS.map(([d, label]) => (
          <a key={d} href={href('overview', { days: d })} aria-current={!chosen && d === days ? 'page' : undefined}>
            {label}
          </a>
        ))}
        {/* A plain link: the cookie goes with it, and the server names the file. */}
        <a class="button secondary" href={`/portal/api/overview.csv?${q}`} download>
          Download CSV
        </a>
      </nav>
      <DayRange
        key={`${q}|${overview.data?.from ?? ''}`}
        from={overview.data?.from ?? ''}
        to={overview.data?.to ?? ''}
      />
      <ErrorNote error={overview.error} />
      {o && (
        <>
          <p class="muted">
            {o.from === o.to ? o.from : `${o.from} to ${o.to}`}: up to today in {o.time_zone}; each day counted in your
            partner's time zone.
          </p>
          <Figures t={o.totals} />
          <div class="charts">
            <DayTrend from={o.from} to={o.to} rows={o.by_day} />
            <RejectedBy t={o.totals} />
          </div>
          <h2>By source</h2>
          <BreakdownTable label="By source" heading="Source" rows={o.by_source.map((r) => [r.source ?? '(none)', r])} />
          <h2>By country</h2>
          <BreakdownTable
            label="By country"
            heading="Country"
            rows={o.by_country.map((r) => [r.country ?? '(unknown)', r])}
          />
        </>
      )}
      <CapTable api={api} />
    </section>
  );
}

function Figures({ t }: { t: Totals }) {
  const cards: [string, string | number, string?][] = [
    ['Received', t.received],
    ['Accepted', t.accepted, `${percent(t.received ? t.accepted / t.received : null)} of received`],
    ['Duplicates', t.duplicates],
    ['Validation errors', t.validation_errors],
    ['Rejected', t.rejected],
    ['Contacted', t.contacted],
    ['FTD', t.ftd, `${percent(t.ftd_rate)} of accepted`],
    ['Chargeback rate', percent(t.chargeback_rate), `${t.chargebacks} chargeback(s)`],
  ];
  return (
    <dl class="stats">
      {cards.map(([label, value, note]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>
            <strong>{value}</strong>
            {note && <span class="muted small"> {note}</span>}
          </dd>
        </div>
      ))}
    </dl>
  );
}

function RejectedBy({ t }: { t: Totals }) {
  const reasons = Object.entries(t.rejected_by_reason)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1]);
  return (
    <figure class="chart">
      <figcaption>
        <strong>Rejected by reason</strong> <span class="muted">{t.rejected} in all</span>
      </figcaption>
      {reasons.length === 0 ? (
        <p class="muted">Nothing rejected in this period.</p>
      ) : (
        <table class="inner">
          <thead>
            <tr>
              <th scope="col">Reason</th>
              <th scope="col" class="num">
                Leads
              </th>
            </tr>
          </thead>
          <tbody>
            {reasons.map(([reason, n]) => (
              <tr key={reason}>
                <td>{reason}</td>
                <td class="num">{n}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </figure>
  );
}
