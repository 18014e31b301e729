import type { Api } from '../../ui-kit/api';
import { BarChart, type Minute } from '../../ui-kit/bar-chart';
import { DayTrend } from '../../ui-kit/report/day-trend';
import type { ReportRow } from '../../ui-kit/report/report-types';
import { ErrorNote, PageHeading, useLoad } from '../../ui-kit/ui';

interface Overview {
  window_minutes: number;
  charts: Record<'leads' | 'callbacks', { metric: string; minutes: Minute[] }>;
  days: { from: string; to: string; rows: ReportRow[] };
}

export function OverviewPage({ api }: { api: Api }) {
  const overview = useLoad(() => api.get<Overview>('/api/overview'), []);
  return (
    <section>
      <PageHeading>Overview</PageHeading>
      <p class="muted">
        The last hour per minute and the last 14 days per day, both stored: every instance's work, kept across restarts
        (the last hour is a few seconds behind).
      </p>
      <button type="button" onClick={overview.reload} disabled={overview.loading}>
        Refresh
      </button>
      <ErrorNote error={overview.error} />
      {overview.data && (
        <div class="charts">
          <BarChart title="Leads by outcome" minutes={overview.data.charts.leads.minutes} />
          <BarChart title="Callbacks by outcome" minutes={overview.data.charts.callbacks.minutes} />
          <DayTrend from={overview.data.days.from} to={overview.data.days.to} rows={overview.data.days.rows} />
        </div>
      )}
    </section>
  );
}
