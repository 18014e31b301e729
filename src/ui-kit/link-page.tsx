import { useState } from 'preact/hooks';
import type { Api } from './api';
import type { AuthSession } from './auth-session';
import { ErrorNote, useAction, useLoad, when } from './ui';

interface LinkInfo {
  kind: 'invitation' | 'password_reset';
  email: string;
  name: string;
  role: string;
  expires_at: string;
}

const PASSWORD_MIN = 12;

// A one-time link (#/link/<token>: after the #, so the token reaches no server; the page posts it in a body): set a password,
// then go on to the second factor, or to setting one up. `auth` is the app's sign-in routes.
export function LinkPage<S extends AuthSession>({
  api,
  auth,
  token,
  onSession,
}: {
  api: Api;
  auth: string;
  token: string;
  onSession: (s: S) => void;
}) {
  const link = useLoad(() => api.post<LinkInfo>(`${auth}/links/peek`, { token }), [token]);
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const use = useAction(async () => {
    if (password !== again) throw new Error('The two passwords differ.');
    const session = await api.post<S>(`${auth}/links/use`, { token, password });
    onSession(session);
    // The token is used up: it leaves the address bar and the history entry.
    location.replace('#/sign-in');
  });
  const l = link.data;

  return (
    <main id="main" class="sign-in">
      <h1>{l?.kind === 'password_reset' ? 'Reset your password' : 'Welcome'}</h1>
      <ErrorNote error={link.error} />
      {l && (
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            void use.act();
          }}
        >
          <p>
            {l.name} ({l.email}), {l.role.replace('_', ' ')}. This link works once, until {when(l.expires_at)} UTC.
          </p>
          <label for="new-password">New password</label>
          <input
            id="new-password"
            type="password"
            autoComplete="new-password"
            minLength={PASSWORD_MIN}
            required
            value={password}
            onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
          />
          <p class="hint">At least {PASSWORD_MIN} characters; a phrase of a few words is good.</p>
          <label for="new-password-again">The same password again</label>
          <input
            id="new-password-again"
            type="password"
            autoComplete="new-password"
            required
            value={again}
            onInput={(e) => setAgain((e.target as HTMLInputElement).value)}
          />
          <ErrorNote error={use.error} />
          <button type="submit" disabled={use.busy}>
            Set the password
          </button>
        </form>
      )}
    </main>
  );
}
