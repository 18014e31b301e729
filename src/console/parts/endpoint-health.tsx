import type { Api } from '../../ui-kit/api';
import { useCan } from '../session';
import { HealthFacts, type Health } from '../../ui-kit/health-facts';
import { ErrorNote, useAction, useLoad } from '../../ui-kit/ui';

const WORDS = {
  callback: { title: 'Endpoint health', held: 'callbacks held', resume: 'Resume callbacks' },
  postback: { title: 'Tracker health (postbacks)', held: 'postbacks held', resume: 'Resume postbacks' },
} as const;

// The partner's callback endpoint health (kind postback: the tracker its postbacks go to), where the
// service has the route: a 404 (a service without it) hides the panel without a word.
export function EndpointHealth({
  api,
  partnerId,
  kind = 'callback',
}: {
  api: Api;
  partnerId: string;
  kind?: 'callback' | 'postback';
}) {
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
  return (
    <section class="panel" aria-labelledby={titleId}>
      <h2 id={titleId}>{words.title}</h2>
      <HealthFacts h={h} held={words.held} />
      {h.state === 'paused' && can('endpoints.resume') && (
        <button type="button" disabled={resume.busy} onClick={() => void resume.act()}>
          {words.resume}
        </button>
      )}
      <ErrorNote error={resume.error} />
    </section>
  );
}
