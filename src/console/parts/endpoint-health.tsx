import type { Api } from '../api';
import { useCan } from '../session';
import { ErrorNote, useAction, useLoad, when } from './ui';

interface Health {
  state: 'active' | 'paused';
  success_rate: number | null;
  consecutive_failures: number;
  last_success_at: string | null;
  last_failure_at: string | null;
  gone: boolean;
  held: number; // deliveries held while paused
}

const WORDS = {
  callback: { title: 'Endpoint health', held: 'callbacks held', resume: 'Resume callbacks' },
  postback: { title: 'Tracker health (postbacks)', held: 'postbacks held', resume: 'Resume postbacks' },
} as const;

// The partner's callback endpoint health (kind postback: the tracker its postbacks go to), where the
// service has the route: a 404 (a service without it) hides the panel without a word.
export function EndpointHealth({ api, partnerId, kind = 'callback' }: { api: Api; partnerId: string; kind?: 'callback' | 'postback' }) {
  const can = useCan();
  const base = `/api/affiliates/${encodeURIComponent(partnerId)}`;
  const q = kind === 'postback' ? '?kind=postback' : '';
  const health = useLoad(() => api.answer<Health>(`${base}/endpoint-health${q}`), [partnerId, kind]);
  const resume = useAction(async () => {
    await api.post(`${base}/endpoint/resume${q}`);
    health.reload();
  });
  const h = health.data?.status === 200 ? health.data.body : null;
  if (!h) return null;
  const words = WORDS[kind];
  const titleId = `health-title-${kind}`;
  const rate = h.success_rate === null ? '—' : `${Math.round(h.success_rate * 1000) / 10}%`;
  return (
    <section class="panel" aria-labelledby={titleId}>
      <h2 id={titleId}>{words.title}</h2>
      <dl class="facts">
        <dt>State</dt><dd>{h.state}{h.gone ? ' (gone)' : ''}{h.held > 0 ? ` (${h.held} ${words.held})` : ''}</dd>
        <dt>Success rate</dt><dd>{rate}</dd>
        <dt>Failures in a row</dt><dd>{h.consecutive_failures}</dd>
        <dt>Last success</dt><dd>{when(h.last_success_at)}</dd>
        <dt>Last failure</dt><dd>{when(h.last_failure_at)}</dd>
      </dl>
      {h.state === 'paused' && can('endpoints.resume') && <button type="button" disabled={resume.busy} onClick={() => void resume.act()}>{words.resume}</button>}
      <ErrorNote error={resume.error} />
    </section>
  );
}
