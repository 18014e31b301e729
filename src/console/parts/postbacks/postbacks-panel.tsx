import { useState } from 'preact/hooks';
import type { Api } from '../../../ui-kit/api';
import { ErrorNote, Notice, useAction } from '../../../ui-kit/ui';
import type { Partner } from '../partner-settings-form';
import { PostbackForm } from './postback-form';
import { TestPostback } from './test-postback';

// Whether any event of the partner gets a postback: a template for every event, or one of its own.
export const hasPostbacks = (p: Partial<Partner>): boolean =>
  Boolean(p.postbacks?.url || (p.postbacks?.templates ?? []).length > 0);

// The postback settings, a live preview of each template, the write-only token and a test postback.
export function PostbacksPanel({ api, partner, onChange }: { api: Api; partner: Partner; onChange: () => void }) {
  const path = `/api/affiliates/${encodeURIComponent(partner.id)}`;
  const [saved, setSaved] = useState<string | null>(null);
  const save = async (postbacks: Record<string, unknown> | null) => {
    setSaved(null);
    await api.patch(path, { postbacks });
    setSaved(postbacks ? 'Postbacks saved.' : 'Postbacks turned off.');
    onChange();
  };
  // A change replaces postbacks whole, so the saved ones go back with the token removed.
  const clearToken = useAction(async () => {
    setSaved(null);
    await api.patch(path, { postbacks: { ...(partner.postbacks ?? {}), token: null } });
    setSaved('Postback token cleared.');
    onChange();
  });

  return (
    <section class="panel" aria-labelledby="postbacks-title">
      <h2 id="postbacks-title">Postbacks</h2>
      <p class="muted">
        GET requests to the partner's tracker, filled from URL templates with macros such as {'{click_id}'},{' '}
        {'{status}'} and {'{event_id}'}; never money or personal data.
      </p>
      <p>
        <span id="pb-token-state">
          <strong>{partner.postback_token_set ? 'Token set' : 'No token'}</strong>
        </span>
        {partner.postback_token_set && (
          <>
            {' '}
            <button type="button" class="secondary" disabled={clearToken.busy} onClick={() => void clearToken.act()}>
              Clear the token
            </button>
          </>
        )}
      </p>
      <ErrorNote error={clearToken.error} />
      <PostbackForm key={partner.updated_at} api={api} partner={partner} onSubmit={save} />
      {saved && <Notice>{saved}</Notice>}

      <TestPostback api={api} path={path} enabled={hasPostbacks(partner)} />
    </section>
  );
}
