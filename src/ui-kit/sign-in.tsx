import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { Api } from './api';
import type { AuthSession } from './auth-session';
import { SecondFactor } from './second-factor';
import { PasskeySetup, TotpSetup } from './second-factor-setup';
import { ErrorNote, Notice, useAction } from './ui';

// Signing in: the email and password, then the second factor (or setting one up when the account
// has none). Each step's answer is the session, which says which step comes next. `auth` is the
// app's sign-in routes (/api/auth, /portal/api/auth); `banner` and `passwordExtras` are what one
// app adds (the console's single sign-on).
export function SignInSteps<S extends AuthSession>({
  api,
  auth,
  title,
  session,
  notice,
  onSession,
  banner,
  passwordExtras,
}: {
  api: Api;
  auth: string;
  title: string;
  session: S | null;
  notice: string | null;
  onSession: (s: S | null) => void;
  banner?: ComponentChildren;
  passwordExtras?: ComponentChildren;
}) {
  // Abandoning a step ends the half-made session, so the next sign-in starts clean.
  const restart = useAction(async () => {
    await api.post(`${auth}/sign-out`);
    onSession(null);
  });
  const step = session?.stage === 'second_factor' || session?.stage === 'enroll' ? session.stage : null;

  return (
    <main id="main" class="sign-in">
      <h1>{title}</h1>
      {notice && <Notice>{notice}</Notice>}
      {step === null && banner}
      {step === null && (
        <PasswordStep<S> api={api} auth={auth} onSession={onSession}>
          {passwordExtras}
        </PasswordStep>
      )}
      {step === 'second_factor' && (
        <>
          <h2>Second step</h2>
          <SecondFactor<S> api={api} auth={auth} factors={session?.second_factors} onSession={onSession} />
        </>
      )}
      {step === 'enroll' && (
        <>
          <h2>Set up a second factor</h2>
          <p>Your account needs an authenticator app or a passkey before you can sign in.</p>
          <TotpSetup<S> api={api} auth={auth} onDone={onSession} />
          <PasskeySetup<S> api={api} auth={auth} onDone={onSession} />
        </>
      )}
      {step !== null && (
        <button type="button" class="secondary" disabled={restart.busy} onClick={() => void restart.act()}>
          Start again
        </button>
      )}
    </main>
  );
}

function PasswordStep<S extends AuthSession>({
  api,
  auth,
  onSession,
  children,
}: {
  api: Api;
  auth: string;
  onSession: (s: S) => void;
  children?: ComponentChildren;
}) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const submit = useAction(async () =>
    onSession(await api.post<S>(`${auth}/sign-in`, { email: email.trim(), password })),
  );

  return (
    <>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          void submit.act();
        }}
      >
        <label for="email">Email</label>
        <input
          id="email"
          type="email"
          autoComplete="username"
          required
          value={email}
          onInput={(e) => setEmail((e.target as HTMLInputElement).value)}
        />
        <label for="password">Password</label>
        <input
          id="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
        />
        <ErrorNote error={submit.error} />
        <button type="submit" disabled={submit.busy}>
          {submit.busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
      {children}
    </>
  );
}
