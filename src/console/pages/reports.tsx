import { useState } from 'preact/hooks';
import { query, type Api, type Page } from '../../ui-kit/api';
import { DayTrend } from '../../ui-kit/report/day-trend';
import { Funnel } from '../../ui-kit/report/funnel';
import { addDays } from '../../ui-kit/report/report-format';
import { ReportTable, type PartnerInfo } from '../parts/report/report-table';
import { DIMENSIONS, type Dimension, type Report } from '../../ui-kit/report/report-types';
import { ErrorNote, PageHeading, useAction, useLoad } from '../../ui-kit/ui';
import { go } from '../../ui-kit/router';

interface Asked {
  from: string;
  to: string;
  group_by: Dimension[];
  affiliate_id: string;
  country: string;
  source: string;
}

const DEFAULT_DAYS = 7;
// "none" in the URL: grouped by nothing (one row, the totals), told apart from "not chosen yet".
const NO_GROUPS = 'none';

function askedOf(params: URLSearchParams, today: string): Asked {
  const to = params.get('to') || today;
  const groups = params.get('group_by') ?? 'partner';
  return {
    from: params.get('from') || addDays(to, -(DEFAULT_DAYS - 1)),
    to,
    group_by: DIMENSIONS.filter((d) => groups.split(',').includes(d)),
    affiliate_id: params.get('affiliate_id') ?? '',
    country: params.get('country') ?? '',
    source: params.get('source') ?? '',
  };
}

const apiQuery = (a: Asked, groupBy: readonly Dimension[]) =>
  query({
    from: a.from,
    to: a.to,
    group_by: groupBy.join(','),
    affiliate_id: a.affiliate_id,
    country: a.country,
    source: a.source,
  });

// Every partner's name and time zone, for the table's names and its links to a partner's leads
// (partners are a list of hundreds, read a page of 200 at a time).
async function allPartners(api: Api): Promise<Map<string, PartnerInfo>> {
  const partners = new Map<string, PartnerInfo>();
  let offset: number | null = 0;
  while (offset !== null) {
    const page: Page<{ id: string; name: string; time_zone?: string | null }> = await api.get(
      `/api/affiliates?limit=200&offset=${offset}`,
    );
    for (const p of page.items) partners.set(p.id, { name: p.name, time_zone: p.time_zone ?? null });
    offset = page.next_offset;
  }
  return partners;
}

// Counts, rates and medians per partner, country, source and day (each partner's own day), the
// per-day trend and the funnel of the same filters, and the same numbers as CSV.
export function ReportsPage({ api, params }: { api: Api; params: URLSearchParams }) {
  const asked = askedOf(params, new Date().toISOString().slice(0, 10));
  const key = JSON.stringify(asked);
  const [draft, setDraft] = useState(asked);
  const report = useLoad(() => api.get<Report>(`/api/reports${apiQuery(asked, asked.group_by)}`), [key]);
  const trend = useLoad(() => api.get<Report>(`/api/reports${apiQuery(asked, ['day'])}`), [key]);
  const partners = useLoad(() => allPartners(api), []);
  const csv = useAction(() =>
    api.download(`/api/reports.csv${apiQuery(asked, asked.group_by)}`, `report-${asked.from}-${asked.to}.csv`),
  );
  const set = (f: 'from' | 'to' | 'affiliate_id' | 'country' | 'source') => (e: Event) =>
    setDraft({ ...draft, [f]: (e.target as HTMLInputElement).value.trim() });
  const toggle = (d: Dimension) =>
    setDraft({ ...draft, group_by: DIMENSIONS.filter((x) => (x === d) !== draft.group_by.includes(x)) });
  const submit = (e: Event) => {
    e.preventDefault();
    go('reports', { ...draft, country: draft.country.toUpperCase(), group_by: draft.group_by.join(',') || NO_GROUPS });
  };

  return (
    <section>
      <PageHeading>Reports</PageHeading>
      <form class="filters" aria-label="Report" onSubmit={submit}>
        <div class="field">
          <label for="r-from">First day</label>
          <input id="r-from" type="date" value={draft.from} onInput={set('from')} required />
        </div>
        <div class="field">
          <label for="r-to">Last day</label>
          <input id="r-to" type="date" value={draft.to} onInput={set('to')} required />
        </div>
        <div class="field">
          <label for="r-partner">Partner id</label>
          <input id="r-partner" value={draft.affiliate_id} onInput={set('affiliate_id')} placeholder="any" />
        </div>
        <div class="field">
          <label for="r-country">Country</label>
          <input
            id="r-country"
            value={draft.country}
            onInput={set('country')}
            placeholder="any"
            maxLength={2}
            pattern="[A-Za-z]{2}"
          />
        </div>
        <div class="field">
          <label for="r-source">Source</label>
          <input id="r-source" value={draft.source} onInput={set('source')} placeholder="any" />
        </div>
        <fieldset class="group-by">
          <legend>Group by</legend>
          {DIMENSIONS.map((d) => (
            <label key={d} class="check">
              <input type="checkbox" checked={draft.group_by.includes(d)} onChange={() => toggle(d)} />
              {d}
            </label>
          ))}
        </fieldset>
        <button type="submit">Show report</button>
      </form>
      <p class="muted">
        Days are each partner's own (its time zone setting, UTC without one), first and last day included.
      </p>
      <div class="actions">
        <button type="button" class="secondary" disabled={csv.busy} onClick={() => void csv.act()}>
          Download CSV
        </button>
      </div>
      <ErrorNote error={csv.error ?? report.error ?? trend.error ?? partners.error} />
      {report.data && (
        <>
          <div class="charts">
            <Funnel totals={report.data.totals} />
            {trend.data && <DayTrend from={trend.data.from} to={trend.data.to} rows={trend.data.rows} />}
          </div>
          <ReportTable report={report.data} partners={partners.data ?? new Map()} />
        </>
      )}
    </section>
  );
}
