import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../../../ui-kit/api';
import { ErrorNote, Notice, useAction, useLoad } from '../../../ui-kit/ui';

// Where the partner's alerts are also posted (signed and retried as its callbacks are); empty: nowhere.
// The form shows once the current URL is read, so nothing typed is overwritten by it.
export function AlertWebhook({ api }: { api: Api }) {
  const loaded = useLoad(() => api.get<{ url: string | null }>('/portal/api/alerts/webhook'), []);
  const [url, setUrl] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  useEffect(() => setUrl(loaded.data?.url ?? ''), [loaded.data]);
  const save = useAction(async () => {
    setNotice(null);
    const wanted = url.trim();
    const saved = wanted
      ? await api.put<{ url: string | null }>('/portal/api/alerts/webhook', { url: wanted })
      : await api.delete<{ url: string | null }>('/portal/api/alerts/webhook');
    setUrl(saved.url ?? '');
    setNotice(saved.url ? 'Alerts will be posted there.' : 'Alerts are posted nowhere.');
  });

  return (
    <section class="panel" aria-labelledby="alert-webhook-title">
      <h2 id="alert-webhook-title">Alerts webhook</h2>
      {loaded.data && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void save.act();
          }}
        >
          <div class="field">
            <label for="alert-webhook-url">Post our alerts to (empty: nowhere)</label>
            <input
              id="alert-webhook-url"
              type="url"
              placeholder="https://…"
              value={url}
              onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
            />
          </div>
          <button type="submit" disabled={save.busy}>
            Save the alerts webhook
          </button>
        </form>
      )}
      <ErrorNote error={loaded.error ?? save.error} />
      {notice && <Notice>{notice}</Notice>}
    </section>
  );
}
