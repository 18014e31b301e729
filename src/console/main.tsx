import { render } from 'preact';
import { SignedInMenu } from '../ui-kit/account-menu';
import { LinkPage } from '../ui-kit/link-page';
import { SignIn } from './pages/sign-in';
import { AppShell } from '../ui-kit/app-shell';
import { useRoute } from '../ui-kit/router';
import { SectionPage, sectionsFor } from './sections';
import { SessionContext, type Session } from './session';
import { useSessionFlow } from '../ui-kit/session-flow';

function App() {
  const route = useRoute();
  const { api, session, notice, onSession, signedOut } = useSessionFlow<Session>('/api/session');

  if (route.path[0] === 'link' && route.path[1])
    return <LinkPage<Session> api={api} auth="/api/auth" token={route.path[1]} onSession={onSession} />;
  if (session === undefined)
    return (
      <main id="main" class="sign-in" aria-busy="true">
        <p>Loading…</p>
      </main>
    );
  if (session?.stage !== 'signed_in' || !session.account) {
    const ssoError = route.path[0] === 'sign-in' ? route.params.get('sso_error') : null;
    return <SignIn api={api} session={session} notice={notice} ssoError={ssoError} onSession={onSession} />;
  }

  const sections = sectionsFor(session.permissions);
  const asked = route.path[0];
  const section =
    asked === 'account' || sections.some(([key]) => key === asked) ? asked! : (sections[0]?.[0] ?? 'account');
  return (
    <SessionContext.Provider value={session}>
      <AppShell
        brand="Lead intake console"
        sections={sections}
        current={section}
        menu={<SignedInMenu api={api} base="/api" account={session.account} onSignedOut={signedOut} />}
      >
        <SectionPage api={api} route={route} section={section} onSession={onSession} />
      </AppShell>
    </SessionContext.Provider>
  );
}

render(<App />, document.getElementById('app')!);
