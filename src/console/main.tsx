import { render } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { Api } from './api';
import { AccountMenu } from './parts/account-menu';
import { LinkPage } from './pages/link';
import { SignIn } from './pages/sign-in';
import { href, useRoute } from './router';
import { SectionPage, sectionsFor } from './sections';
import { SessionContext, type Session } from './session';

function App() {
  const route = useRoute();
  // undefined: still asking the server whether this browser has a session.
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [notice, setNotice] = useState<string | null>(null);
  const signedIn = useRef(false);
  signedIn.current = session?.stage === 'signed_in';
  // A 401 while signed in means the session ended (timed out, revoked, rights changed); during the
  // sign-in steps it is only a wrong code, shown by the step itself.
  const api = useMemo(() => new Api(() => {
    if (!signedIn.current) return;
    setSession(null);
    setNotice('Your session has ended. Sign in again.');
  }), []);
  const onSession = (s: Session | null) => {
    if (s) api.useCsrf(s.csrf_token);
    if (s?.stage === 'signed_in') setNotice(null);
    setSession(s);
  };
  const signedOut = (why: string) => {
    setSession(null);
    setNotice(why);
  };

  // The session cookie outlives a reload: the server says where this browser stands.
  useEffect(() => {
    api.answer<Session>('/api/session').then((a) => onSession(a.status === 200 ? a.body : null), () => onSession(null));
  }, []);

  if (route.path[0] === 'link' && route.path[1]) return <LinkPage api={api} token={route.path[1]} onSession={onSession} />;
  if (session === undefined) return <main id="main" class="sign-in" aria-busy="true"><p>Loading…</p></main>;
  if (session?.stage !== 'signed_in' || !session.account) {
    const ssoError = route.path[0] === 'sign-in' ? route.params.get('sso_error') : null;
    return <SignIn api={api} session={session} notice={notice} ssoError={ssoError} onSession={onSession} />;
  }

  const sections = sectionsFor(session.permissions);
  const asked = route.path[0];
  const section = asked === 'account' || sections.some(([key]) => key === asked) ? asked! : (sections[0]?.[0] ?? 'account');
  return (
    <SessionContext.Provider value={session}>
      <a class="skip" href="#main" onClick={(e) => { e.preventDefault(); document.getElementById('main')?.focus(); }}>Skip to content</a>
      <header class="top">
        <span class="brand">Lead intake console</span>
        <nav aria-label="Sections">
          <ul>
            {sections.map(([key, label]) => (
              <li key={key}><a href={href(key)} aria-current={section === key ? 'page' : undefined}>{label}</a></li>
            ))}
          </ul>
        </nav>
        <AccountMenu api={api} account={session.account} onSignedOut={signedOut} />
      </header>
      <main id="main" tabIndex={-1}>
        <SectionPage api={api} route={route} section={section} onSession={onSession} />
      </main>
    </SessionContext.Provider>
  );
}

render(<App />, document.getElementById('app')!);
