import type { Api } from '../api';
import { ErrorNote, useAction, useLoad, when } from './ui';

interface Health {
  state: 'active' | 'paused';
  success_rate: number | null;
  consecutive_failures: number;
  last_success_at: string | null;
  last_failure_at: string | null;
  gone: boolean;
  held: number; // callbacks held while paused
}

// The partner's callback endpoint health, where the service has the route: a 404 (a service without
// it) hides the panel without a word.
export function EndpointHealth({ api, partnerId }: { api: Api; partnerId: string }) {
  const health = useLoad(() => api.answer<Health>(`/api/affiliates/${encodeURIComponent(partnerId)}/endpoint-health`), [partnerId]);
  const resume = useAction(async () => {
    await api.post(`/api/affiliates/${encodeURIComponent(partnerId)}/endpoint/resume`);
    health.reload();
  });
  const h = health.data?.status === 200 ? health.data.body : null;
  if (!h) return null;
  const rate = h.success_rate === null ? '—' : `${Math.round(h.success_rate * 1000) / 10}%`;
  return (
    <section class="panel" aria-labelledby="health-title">
      <h2 id="health-title">Endpoint health</h2>
      <dl class="facts">
        <dt>State</dt><dd>{h.state}{h.gone ? ' (gone)' : ''}{h.held > 0 ? ` (${h.held} callbacks held)` : ''}</dd>
        <dt>Success rate</dt><dd>{rate}</dd>
        <dt>Failures in a row</dt><dd>{h.consecutive_failures}</dd>
        <dt>Last success</dt><dd>{when(h.last_success_at)}</dd>
        <dt>Last failure</dt><dd>{when(h.last_failure_at)}</dd>
      </dl>
      {h.state === 'paused' && <button type="button" disabled={resume.busy} onClick={() => void resume.act()}>Resume callbacks</button>}
      <ErrorNote error={resume.error} />
    </section>
  );
}
