import type { Api } from '../../ui-kit/api';
import { ErrorNote, PageHeading, ScrollTable, useLoad, when } from '../../ui-kit/ui';
import { CallbackSettings } from '../parts/callback-settings';
import { RotateSecrets } from '../parts/rotate-secrets';
import { useCan } from '../session';
import type { Integration } from '../types';

// What the partner's developers need: the base URL, the quotas and their use, how requests and
// callbacks are signed, the API document and snippets; for a partner_admin, rotating a secret and
// the callback URL and events.
export function IntegrationPage({ api }: { api: Api }) {
  const can = useCan();
  const integration = useLoad(() => api.get<Integration>('/portal/api/integration'), []);
  const i = integration.data;
  return (
    <section>
      <PageHeading>Integration</PageHeading>
      <ErrorNote error={integration.error} />
      {i && (
        <>
          <dl class="facts">
            <dt>Base URL</dt><dd class="mono wrap">{i.base_url}</dd>
            <dt>Signing</dt><dd>{i.signing.scheme}{i.signing.description ? <span class="muted"> · {i.signing.description}</span> : null}</dd>
            <dt>Callback URL</dt><dd class="mono wrap">{i.callback_url ?? '— (none set)'}</dd>
            <dt>Callback events</dt><dd>{i.callback_events.join(', ') || '—'}</dd>
            <dt>Keys rotated</dt><dd>{when(i.key_rotated_at)}</dd>
          </dl>
          <h2>Rate limits</h2>
          <ScrollTable label="Rate limits">
            <thead><tr><th scope="col">Endpoint</th><th scope="col" class="num">Limit per minute</th><th scope="col" class="num">Used in the last minute</th></tr></thead>
            <tbody>
              {i.rate_limits.map((r) => <tr key={r.endpoint}><td>{r.endpoint}</td><td class="num">{r.limit_per_minute}</td><td class="num">{r.used}</td></tr>)}
            </tbody>
          </ScrollTable>
          <h2>Documents</h2>
          <ul>{i.links.map((l) => <li key={l.url}><a href={l.url}>{l.label}</a></li>)}</ul>
          {can('portal.act') && (
            <div class="two">
              <RotateSecrets api={api} onRotated={integration.reload} />
              <CallbackSettings api={api} integration={i} onSaved={integration.reload} />
            </div>
          )}
        </>
      )}
    </section>
  );
}
