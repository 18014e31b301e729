import { useState } from 'preact/hooks';
import { AlertChoiceForm } from './alert-choice';
import type { Api } from './api';
import type { AuthSession } from './auth-session';
import { Reauthenticate } from './reauthenticate';
import { PasskeySetup, TotpSetup } from './second-factor-setup';
import { ErrorNote, Notice, PageHeading, useAction, useLoad, whenIn } from './ui';

interface Me {
  account: {
    id: string;
    email: string;
    name: string;
    role: string;
    second_factors: { totp: boolean; passkeys: number };
    last_sign_in_at: string | null;
  } | null;
}

// The signed-in person's own settings, in the console (`base` /api) and the portal (/portal/api): the
// password, the alerts mailed to them and the second factors. Their own times are shown in `zone`
// (a portal person's own, the browser's in the console).
export function AccountPage<S extends AuthSession>({
  api,
  base,
  zone,
  onSession,
}: {
  api: Api;
  base: '/api' | '/portal/api';
  zone: string;
  onSession: (s: S) => void;
}) {
  const me = useLoad(() => api.get<Me>(`${base}/me`), []);
  const [notice, setNotice] = useState<string | null>(null);
  // A proof allows one change of second factors: the forms show after it, and go with the change.
  const [proven, setProven] = useState(false);
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const change = useAction(async () => {
    setNotice(null);
    onSession(await api.post<S>(`${base}/me/password`, { current_password: current, new_password: next }));
    setCurrent('');
    setNext('');
    setNotice('Password changed. Every other session of your account has ended.');
  });
  const added = (what: string) => (s: S) => {
    onSession(s);
    setProven(false);
    setNotice(`${what} added.`);
    me.reload();
  };
  const a = me.data?.account;

  return (
    <section>
      <PageHeading>Your account</PageHeading>
      <ErrorNote error={me.error} />
      {notice && <Notice>{notice}</Notice>}
      {a && (
        <dl class="facts">
          <dt>Name</dt>
          <dd>{a.name}</dd>
          <dt>Email</dt>
          <dd>{a.email}</dd>
          <dt>Role</dt>
          <dd>{a.role}</dd>
          <dt>Second factors</dt>
          <dd>
            {a.second_factors.totp ? 'authenticator app' : 'no authenticator app'}, {a.second_factors.passkeys}{' '}
            passkey(s)
          </dd>
          <dt>Last sign-in</dt>
          <dd>{a.last_sign_in_at ? `${whenIn(a.last_sign_in_at, zone)} ${zone}` : '—'}</dd>
        </dl>
      )}
      <section class="panel" aria-labelledby="password-title">
        <h2 id="password-title">Change your password</h2>
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            void change.act();
          }}
        >
          <label for="current-password">Current password</label>
          <input
            id="current-password"
            type="password"
            autoComplete="current-password"
            required
            value={current}
            onInput={(e) => setCurrent((e.target as HTMLInputElement).value)}
          />
          <label for="account-new-password">New password</label>
          <input
            id="account-new-password"
            type="password"
            autoComplete="new-password"
            minLength={12}
            required
            value={next}
            onInput={(e) => setNext((e.target as HTMLInputElement).value)}
          />
          <ErrorNote error={change.error} />
          <button type="submit" disabled={change.busy}>
            Change the password
          </button>
        </form>
      </section>
      {a && (
        <AlertChoiceForm api={api} base={base} about={base === '/api' ? 'the partners I look after' : 'our partner'} />
      )}
      {a && !proven && (
        <Reauthenticate api={api} base={base} factors={a.second_factors} onDone={() => setProven(true)} />
      )}
      {proven && <TotpSetup<S> api={api} auth={`${base}/auth`} onDone={added('Authenticator app')} />}
      {proven && <PasskeySetup<S> api={api} auth={`${base}/auth`} onDone={added('Passkey')} />}
    </section>
  );
}
