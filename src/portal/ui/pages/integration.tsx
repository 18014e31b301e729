import type { Api } from '../../../ui-kit/api';
import { ErrorNote, PageHeading, ScrollTable, useLoad, whenIn } from '../../../ui-kit/ui';
import { AlertWebhook } from '../parts/alert-webhook';
import { CallbackSettings } from '../parts/callback-settings';
import { RotateSecrets } from '../parts/rotate-secrets';
import { TestLead } from '../parts/test-lead';
import { useCan } from '../session';
import type { Integration } from '../types.generated';
import { useZone } from '../zone';

// What the partner's developers need: the base URL, the quotas and their use, how requests and
// callbacks are signed, the API document and verification code; for a partner_admin, rotating a
// secret, the callback URL and events, and the alerts' webhook.
export function IntegrationPage({ api }: { api: Api }) {
  const can = useCan();
  const { zone } = useZone();
  const integration = useLoad(() => api.get<Integration>('/portal/api/integration'), []);
  const i = integration.data;
  return (
    <section>
      <PageHeading>Integration</PageHeading>
      <ErrorNote error={integration.error} />
      {i && (
        <>
          <dl class="facts">
            <dt>Base URL</dt>
            <dd class="mono wrap">{i.base_url}</dd>
            <dt>API document</dt>
            <dd>
              <a href={i.api_document_url}>Partner API (OpenAPI)</a>
            </dd>
            <dt>Signing your requests</dt>
            <dd>
              {i.signing.requests} (timestamps within {i.signing.timestamp_tolerance_seconds} s)
            </dd>
            <dt>Our callbacks' signature</dt>
            <dd>{i.signing.callbacks}</dd>
            <dt>Callback URL</dt>
            <dd class="mono wrap">{i.callback_url ?? '— (none set)'}</dd>
            <dt>Callback events</dt>
            <dd>{i.callback_events.join(', ') || 'every event'}</dd>
            <dt>Postbacks</dt>
            <dd>{i.postbacks.events.join(', ') || 'none'}</dd>
            <dt>Keys rotated</dt>
            <dd>
              {whenIn(i.key_rotated_at, zone)}
              {i.previous_secrets_until
                ? ` (the old ones work until ${whenIn(i.previous_secrets_until, zone)} ${zone})`
                : ''}
            </dd>
          </dl>
          <h2>Rate limits</h2>
          <ScrollTable label="Rate limits">
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col" class="num">
                  Requests per minute
                </th>
                <th scope="col" class="num">
                  Used now
                </th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <td>Send a lead (POST /leads)</td>
                <td class="num">{i.rate_limits.intake.per_minute}</td>
                <td class="num">{i.rate_limits.intake.used}</td>
              </tr>
              <tr>
                <td>Lead status (GET /leads/…/status)</td>
                <td class="num">{i.rate_limits.status.per_minute}</td>
                <td class="num">{i.rate_limits.status.used}</td>
              </tr>
            </tbody>
          </ScrollTable>
          <p class="muted">Counted over a sliding window of {i.rate_limits.window_seconds} s.</p>
          {can('portal.act') && (
            <div class="two">
              <RotateSecrets api={api} onRotated={integration.reload} />
              <CallbackSettings api={api} integration={i} onSaved={integration.reload} />
              <AlertWebhook api={api} />
            </div>
          )}
          {can('portal.act') && i.mode === 'test' && <TestLead api={api} />}
          {i.mode === 'live' && (
            <p class="muted">
              A test lead can be sent from this page while your partner is a sandbox (test mode): ask your manager.
            </p>
          )}
          <h2>Verifying our callbacks</h2>
          {i.verification_snippets.map((s) => (
            <details key={s.file} class="snippet">
              <summary>
                {s.language} <span class="mono muted">{s.file}</span>
              </summary>
              <pre class="body">{s.code}</pre>
            </details>
          ))}
          {i.verification_snippets.length === 0 && <p class="muted">No snippet here; see the partner documentation.</p>}
        </>
      )}
    </section>
  );
}
