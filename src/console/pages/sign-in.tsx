import { useState } from 'preact/hooks';
import { tokenWorks } from '../api';
import { ErrorNote, Notice } from '../parts/ui';

// The manager token is checked against the API, then kept in memory only.
export function SignIn({ onSignIn, notice }: { onSignIn: (token: string) => void; notice: string | null }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      if (await tokenWorks(token.trim())) onSignIn(token.trim());
      else setError(new Error('This token is not accepted. Check it and try again.'));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" class="sign-in">
      <h1>Lead intake console</h1>
      {notice && <Notice>{notice}</Notice>}
      <form onSubmit={submit}>
        <label for="token">Manager token</label>
        <input id="token" type="password" autoComplete="off" required value={token} onInput={(e) => setToken((e.target as HTMLInputElement).value)} />
        <p class="hint">One of the service's MANAGER_TOKENS. It stays in this tab's memory: reloading the page signs you out.</p>
        <ErrorNote error={error} />
        <button type="submit" disabled={busy}>{busy ? 'Checking…' : 'Sign in'}</button>
      </form>
    </main>
  );
}
