import { useState } from 'preact/hooks';
import type { Api } from '../../../ui-kit/api';
import { SecretsOnce, type Secrets } from '../../../ui-kit/secrets-once';
import { ErrorNote, useAction } from '../../../ui-kit/ui';
import { SECRETS } from '../types.generated';

const LABELS = {
  api_key: 'API key',
  hmac_secret: 'HMAC secret (signing your requests)',
  callback_secret: 'Callback secret (verifying our callbacks)',
} as const;
const GRACE = [
  [0, 'no time: it stops now'],
  [3600, '1 hour'],
  [86_400, '24 hours'],
  [604_800, '7 days'],
] as const;

// A new key or secret, the old one still accepted for the grace period while the partner's systems
// switch over. The new values are shown once, here, and kept nowhere in the browser.
export function RotateSecrets({ api, onRotated }: { api: Api; onRotated: () => void }) {
  const [which, setWhich] = useState<string[]>(['api_key']);
  const [grace, setGrace] = useState<number>(86_400);
  const [shown, setShown] = useState<Secrets | null>(null);
  const rotate = useAction(async () => {
    if (which.length === 0) throw new Error('Choose what to rotate.');
    const answer = await api.post<Secrets>('/portal/api/integration/rotate', { which, grace_seconds: grace });
    setShown(Object.fromEntries(SECRETS.flatMap((k) => (typeof answer[k] === 'string' ? [[k, answer[k]]] : []))));
    onRotated();
  });
  const toggle = (k: string) => (e: Event) =>
    setWhich((e.target as HTMLInputElement).checked ? [...which, k] : which.filter((w) => w !== k));

  return (
    <section class="panel" aria-labelledby="rotate-title">
      <h2 id="rotate-title">Rotate a key or secret</h2>
      {shown ? (
        <SecretsOnce
          title="Your new secrets"
          secrets={shown}
          onDone={() => setShown(null)}
          note="Copy each into your own system now: we cannot show it again"
        />
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void rotate.act();
          }}
        >
          <fieldset>
            <legend>Rotate</legend>
            {SECRETS.map((k) => (
              <label key={k} class="check">
                <input type="checkbox" checked={which.includes(k)} onChange={toggle(k)} />
                {LABELS[k]}
              </label>
            ))}
          </fieldset>
          <div class="field">
            <label for="rotate-grace">The old value keeps working for</label>
            <select
              id="rotate-grace"
              value={String(grace)}
              onChange={(e) => setGrace(Number((e.target as HTMLSelectElement).value))}
            >
              {GRACE.map(([s, label]) => (
                <option key={s} value={String(s)}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          <p class="hint">
            The new value is shown once. Whoever holds the old one can use it until the grace period ends.
          </p>
          <button type="submit" disabled={rotate.busy}>
            Rotate
          </button>
        </form>
      )}
      <ErrorNote error={rotate.error} />
    </section>
  );
}
