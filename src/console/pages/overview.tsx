import type { Api } from '../api';
import { BarChart, type Minute } from '../parts/bar-chart';
import { ErrorNote, PageHeading, useLoad } from '../parts/ui';

interface Overview {
  window_minutes: number;
  charts: Record<'leads' | 'callbacks', { metric: string; minutes: Minute[] }>;
}

export function OverviewPage({ api }: { api: Api }) {
  const overview = useLoad(() => api.get<Overview>('/api/overview'), []);
  return (
    <section>
      <PageHeading>Overview</PageHeading>
      <p class="muted">From the service's own counters, sampled each minute in memory by this instance.</p>
      <button type="button" onClick={overview.reload} disabled={overview.loading}>Refresh</button>
      <ErrorNote error={overview.error} />
      {overview.data && (
        <div class="charts">
          <BarChart title="Leads by outcome" minutes={overview.data.charts.leads.minutes} />
          <BarChart title="Callbacks by outcome" minutes={overview.data.charts.callbacks.minutes} />
        </div>
      )}
    </section>
  );
}
