import type { Api } from '../../../ui-kit/api';
import { HealthFacts } from '../../../ui-kit/health-facts';
import { ErrorNote, useAction, useLoad } from '../../../ui-kit/ui';
import { useCan } from '../session';
import type { EndpointHealth } from '../types.generated';
import { useZone } from '../zone';

const TITLES = { callback: 'Callback endpoint', postback: 'Postback endpoint (your tracker)' } as const;

// The health of the partner's endpoints (the callback URL, and the tracker when postbacks are set),
// with a resume for one the service paused after failures.
export function EndpointPanels({ api }: { api: Api }) {
  const endpoints = useLoad(() => api.get<{ items: EndpointHealth[] }>('/portal/api/endpoints'), []);
  return (
    <>
      <ErrorNote error={endpoints.error} />
      <div class="two">
        {(endpoints.data?.items ?? []).map((h) => (
          <EndpointPanel key={h.kind} api={api} h={h} onChange={endpoints.reload} />
        ))}
      </div>
    </>
  );
}

function EndpointPanel({ api, h, onChange }: { api: Api; h: EndpointHealth; onChange: () => void }) {
  const can = useCan();
  const { zone } = useZone();
  const resume = useAction(async () => {
    await api.post(`/portal/api/endpoints/${h.kind}/resume`);
    onChange();
  });
  const titleId = `endpoint-${h.kind}`;
  return (
    <section class="panel" aria-labelledby={titleId}>
      <h2 id={titleId}>{TITLES[h.kind]}</h2>
      <HealthFacts h={h} held="held" zone={zone} />
      {h.state === 'paused' && (
        <p>Paused after repeated failures: fix your endpoint, then resume. Held deliveries go out again.</p>
      )}
      {h.state === 'paused' && can('portal.act') && (
        <button type="button" disabled={resume.busy} onClick={() => void resume.act()}>
          Resume {h.kind}s
        </button>
      )}
      <ErrorNote error={resume.error} />
    </section>
  );
}
