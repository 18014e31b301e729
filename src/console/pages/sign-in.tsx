import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api';
import { SecondFactor } from '../parts/second-factor';
import { PasskeySetup, TotpSetup } from '../parts/second-factor-setup';
import { ErrorNote, Notice, useAction } from '../parts/ui';
import type { Session } from '../session';

// Signing in: the email and password, then the second factor (or setting one up when the account
// has none). Each step's answer is the session, which says which step comes next.
export function SignIn({ api, session, notice, ssoError, onSession }: {
  api: Api; session: Session | null; notice: string | null; ssoError: string | null; onSession: (s: Session | null) => void;
}) {
  // Abandoning a step ends the half-made session, so the next sign-in starts clean.
  const restart = useAction(async () => {
    await api.post('/api/auth/sign-out');
    onSession(null);
  });
  const step = session?.stage === 'second_factor' || session?.stage === 'enroll' ? session.stage : null;

  return (
    <main id="main" class="sign-in">
      <h1>Lead intake console</h1>
      {notice && <Notice>{notice}</Notice>}
      {ssoError && !step && <p class="error" role="alert">Single sign-on did not sign you in ({ssoError}). Try again, or sign in with your password.</p>}
      {step === null && <PasswordStep api={api} onSession={onSession} />}
      {step === 'second_factor' && (
        <>
          <h2>Second step</h2>
          <SecondFactor api={api} factors={session?.second_factors} onSession={onSession} />
        </>
      )}
      {step === 'enroll' && (
        <>
          <h2>Set up a second factor</h2>
          <p>Your account needs an authenticator app or a passkey before you can sign in.</p>
          <TotpSetup api={api} onDone={onSession} />
          <PasskeySetup api={api} onDone={onSession} />
        </>
      )}
      {step !== null && <button type="button" class="secondary" disabled={restart.busy} onClick={() => void restart.act()}>Start again</button>}
    </main>
  );
}

function PasswordStep({ api, onSession }: { api: Api; onSession: (s: Session) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const submit = useAction(async () => onSession(await api.post<Session>('/api/auth/sign-in', { email: email.trim(), password })));
  // The SSO button only where single sign-on is configured.
  const [sso, setSso] = useState(false);
  useEffect(() => {
    void api.answer<{ sso: boolean }>('/api/auth/methods').then((a) => setSso(a.body?.sso === true), () => setSso(false));
  }, [api]);

  return (
    <>
      <form class="stack" onSubmit={(e) => { e.preventDefault(); void submit.act(); }}>
        <label for="email">Email</label>
        <input id="email" type="email" autoComplete="username" required value={email} onInput={(e) => setEmail((e.target as HTMLInputElement).value)} />
        <label for="password">Password</label>
        <input id="password" type="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword((e.target as HTMLInputElement).value)} />
        <ErrorNote error={submit.error} />
        <button type="submit" disabled={submit.busy}>{submit.busy ? 'Checking…' : 'Sign in'}</button>
      </form>
      {/* A plain link: the server redirects to the provider and back to the console. */}
      {sso && <p><a class="button secondary" href="/api/auth/sso">Sign in with SSO</a></p>}
    </>
  );
}
