import { render } from 'preact';
import { SignedInMenu } from '../../ui-kit/account-menu';
import { AppShell } from '../../ui-kit/app-shell';
import { LinkPage } from '../../ui-kit/link-page';
import { useRoute } from '../../ui-kit/router';
import { useSessionFlow } from '../../ui-kit/session-flow';
import { SignInSteps } from '../../ui-kit/sign-in';
import { PortalPage, sectionsFor } from './sections';
import { AUTH, SessionContext, type PortalSession } from './session';
import { ZoneProvider } from './zone';

// The partner portal: a partner's own people sign in (password, then TOTP or a passkey) and see
// their partner's traffic, leads, callbacks and integration. Nothing secret is kept in the browser
// but the HttpOnly session cookie; secrets shown once live only in a page's state.
function App() {
  const route = useRoute();
  const { api, session, notice, onSession, signedOut } = useSessionFlow<PortalSession>('/portal/api/session');

  if (route.path[0] === 'link' && route.path[1])
    return <LinkPage<PortalSession> api={api} auth={AUTH} token={route.path[1]} onSession={onSession} />;
  if (session === undefined)
    return (
      <main id="main" class="sign-in" aria-busy="true">
        <p>Loading…</p>
      </main>
    );
  if (session?.stage !== 'signed_in' || !session.account) {
    return (
      <SignInSteps
        api={api}
        auth={AUTH}
        title="Partner portal"
        session={session}
        notice={notice}
        onSession={onSession}
      />
    );
  }

  const sections = sectionsFor(session.permissions);
  const asked = route.path[0];
  const section =
    asked === 'account' || sections.some(([key]) => key === asked) ? asked! : (sections[0]?.[0] ?? 'overview');
  const brand = (
    <>
      Partner portal <span class="muted-light">· {session.account.partner_name ?? session.account.partner_id}</span>
    </>
  );
  return (
    <SessionContext.Provider value={session}>
      <AppShell
        brand={brand}
        sections={sections}
        current={section}
        menu={
          <SignedInMenu
            api={api}
            base="/portal/api"
            account={session.account}
            caption={session.account.partner_name ?? session.account.partner_id}
            onSignedOut={signedOut}
          />
        }
      >
        <ZoneProvider api={api}>
          <PortalPage key={section} api={api} route={route} section={section} onSession={onSession} />
        </ZoneProvider>
      </AppShell>
    </SessionContext.Provider>
  );
}

render(<App />, document.getElementById('app')!);
