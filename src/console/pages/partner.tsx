import { useState } from 'preact/hooks';
import type { Api } from '../../ui-kit/api';
import { EndpointHealth } from '../parts/endpoint-health';
import { PartnerSettingsForm, type Partner } from '../parts/partner-settings-form';
import { hasPostbacks, PostbacksPanel } from '../parts/postbacks/postbacks-panel';
import { TestResultNote, type TestResult } from '../../ui-kit/test-result';
import { SecretsOnce, type Secrets } from '../../ui-kit/secrets-once';
import { ErrorNote, Notice, PageHeading, useAction, useLoad, when } from '../../ui-kit/ui';
import { href } from '../../ui-kit/router';
import { useCan } from '../session';

export function PartnerPage({ api, id }: { api: Api; id: string }) {
  const can = useCan();
  const path = `/api/affiliates/${encodeURIComponent(id)}`;
  const partner = useLoad(() => api.get<Partner>(path), [id]);
  const [saved, setSaved] = useState(false);
  const [rotated, setRotated] = useState<Secrets | null>(null);
  const [alsoRotate, setAlsoRotate] = useState<string[]>([]);
  const [test, setTest] = useState<TestResult | null>(null);
  const [requeued, setRequeued] = useState<number | null>(null);

  const save = async (settings: Record<string, unknown>) => {
    setSaved(false);
    await api.patch(path, settings);
    setSaved(true);
    partner.reload();
  };
  const rotate = useAction(async () => {
    const {
      id: _id,
      key_rotated_at: _at,
      ...secrets
    } = await api.post<Secrets & { id: string; key_rotated_at: string }>(`${path}/rotate-key`, { secrets: alsoRotate });
    setRotated(secrets);
    partner.reload();
  });
  const sendTest = useAction(async () => setTest(await api.post<TestResult>(`${path}/test-callback`)));
  const retryDead = useAction(async () =>
    setRequeued((await api.post<{ requeued: number }>(`${path}/deliveries/retry-dead`)).requeued),
  );
  const toggle = (secret: string) => (e: Event) =>
    setAlsoRotate(
      (e.target as HTMLInputElement).checked ? [...alsoRotate, secret] : alsoRotate.filter((s) => s !== secret),
    );

  const p = partner.data;
  return (
    <section>
      <PageHeading>{p ? `Partner ${p.name}` : 'Partner'}</PageHeading>
      <p>
        <a href={href('partners')}>All partners</a>
      </p>
      <ErrorNote error={partner.error} />
      {p && (
        <>
          <dl class="facts">
            <dt>Id</dt>
            <dd class="mono">{p.id}</dd>
            <dt>Created</dt>
            <dd>{when(p.created_at)}</dd>
            <dt>Key rotated</dt>
            <dd>{when(p.key_rotated_at)}</dd>
          </dl>
          {rotated && <SecretsOnce title="New credentials" secrets={rotated} onDone={() => setRotated(null)} />}

          {(can('deliveries.read') || can('partners.test')) && (
            <section class="panel" aria-labelledby="deliveries-title">
              <h2 id="deliveries-title">Callbacks</h2>
              {can('deliveries.read') && (
                <p>
                  <a href={href('deliveries', { affiliate_id: p.id })}>All deliveries</a>
                  {' · '}
                  <a href={href('deliveries', { affiliate_id: p.id, state: 'dead' })}>Dead deliveries</a>
                </p>
              )}
              <div class="actions">
                {can('partners.test') && (
                  <button type="button" disabled={sendTest.busy || !p.callback_url} onClick={() => void sendTest.act()}>
                    Send a test callback
                  </button>
                )}
                {can('deliveries.retry') && (
                  <button type="button" disabled={retryDead.busy} onClick={() => void retryDead.act()}>
                    Retry all dead deliveries
                  </button>
                )}
              </div>
              {!p.callback_url && can('partners.test') && (
                <p class="muted">No callback URL set: set one below to send a test callback.</p>
              )}
              <ErrorNote error={sendTest.error ?? retryDead.error} />
              {requeued !== null && <Notice>{requeued} dead deliveries queued again.</Notice>}
              {test && <TestResultNote test={test} />}
            </section>
          )}

          {can('endpoints.read') && (
            <div class="two">
              <EndpointHealth api={api} partnerId={p.id} />
              {hasPostbacks(p) && <EndpointHealth api={api} partnerId={p.id} kind="postback" />}
            </div>
          )}

          {can('partners.settings') && <PostbacksPanel api={api} partner={p} onChange={partner.reload} />}

          {can('partners.settings') && (
            <section class="panel" aria-labelledby="settings-title">
              <h2 id="settings-title">Settings</h2>
              <PartnerSettingsForm key={p.updated_at} partner={p} submitLabel="Save settings" onSubmit={save} />
              {saved && <Notice>Settings saved.</Notice>}
            </section>
          )}

          {can('partners.secrets') && (
            <section class="panel" aria-labelledby="rotate-title">
              <h2 id="rotate-title">Rotate credentials</h2>
              <p>A new API key works at once; the old one is refused on every instance.</p>
              <fieldset>
                <legend>Also rotate</legend>
                <label class="check">
                  <input
                    type="checkbox"
                    checked={alsoRotate.includes('hmac_secret')}
                    onChange={toggle('hmac_secret')}
                  />{' '}
                  HMAC secret
                </label>
                <label class="check">
                  <input
                    type="checkbox"
                    checked={alsoRotate.includes('callback_secret')}
                    onChange={toggle('callback_secret')}
                  />{' '}
                  Callback secret
                </label>
              </fieldset>
              <button type="button" disabled={rotate.busy} onClick={() => void rotate.act()}>
                Rotate API key
              </button>
              <ErrorNote error={rotate.error} />
            </section>
          )}
        </>
      )}
    </section>
  );
}
