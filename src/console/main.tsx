import { render } from 'preact';
import { useState } from 'preact/hooks';
import { Api } from './api';
import { AgentsPage } from './pages/agents';
import { AuditPage } from './pages/audit';
import { DeliveriesPage } from './pages/deliveries';
import { LeadsPage } from './pages/leads';
import { OverviewPage } from './pages/overview';
import { PartnerPage } from './pages/partner';
import { PartnersPage } from './pages/partners';
import { ReportsPage } from './pages/reports';
import { SignIn } from './pages/sign-in';
import { href, useRoute, type Route } from './router';

const SECTIONS = [
  ['overview', 'Overview'], ['reports', 'Reports'], ['partners', 'Partners'], ['deliveries', 'Deliveries'], ['leads', 'Leads'], ['agents', 'Agents'],
  ['audit', 'Audit log'],
] as const;

function App() {
  const [api, setApi] = useState<Api | null>(null);
  const [signedOutWhy, setSignedOutWhy] = useState<string | null>(null);
  const route = useRoute();

  const signIn = (token: string) => {
    setSignedOutWhy(null);
    setApi(new Api(token, () => {
      setApi(null);
      setSignedOutWhy('The server no longer accepts this token. Sign in again.');
    }));
  };

  if (!api) return <SignIn onSignIn={signIn} notice={signedOutWhy} />;
  const section = route.path[0] ?? 'overview';
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => { e.preventDefault(); document.getElementById('main')?.focus(); }}>Skip to content</a>
      <header class="top">
        <span class="brand">Lead intake console</span>
        <nav aria-label="Sections">
          <ul>
            {SECTIONS.map(([key, label]) => (
              <li key={key}><a href={href(key)} aria-current={section === key ? 'page' : undefined}>{label}</a></li>
            ))}
          </ul>
        </nav>
        <button type="button" class="sign-out" onClick={() => { setApi(null); setSignedOutWhy('Signed out.'); }}>Sign out</button>
      </header>
      <main id="main" tabIndex={-1}>
        <Page api={api} route={route} section={section} />
      </main>
    </>
  );
}

function Page({ api, route, section }: { api: Api; route: Route; section: string }) {
  switch (section) {
    case 'partners': return route.path[1] ? <PartnerPage key={route.path[1]} api={api} id={route.path[1]} /> : <PartnersPage api={api} />;
    case 'deliveries': return <DeliveriesPage api={api} params={route.params} />;
    case 'reports': return <ReportsPage api={api} params={route.params} />;
    case 'leads': return <LeadsPage api={api} params={route.params} />;
    case 'agents': return <AgentsPage api={api} />;
    case 'audit': return <AuditPage api={api} params={route.params} />;
    default: return <OverviewPage api={api} />;
  }
}

render(<App />, document.getElementById('app')!);
