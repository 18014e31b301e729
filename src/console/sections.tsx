import type { SectionProps } from '../ui-kit/app-shell';
import type { Permission } from '../identity/roles';
import { AccountPage } from '../ui-kit/account-page';
import { browserZone } from '../ui-kit/ui';
import { AccountsPage } from './pages/accounts';
import { AgentsPage } from './pages/agents';
import { AuditPage } from './pages/audit';
import { DeliveriesPage } from './pages/deliveries';
import { LeadsPage } from './pages/leads';
import { MyLeadsPage } from './pages/my-leads';
import { OverviewPage } from './pages/overview';
import { PartnerPage } from './pages/partner';
import { PartnersPage } from './pages/partners';
import { ReportsPage } from './pages/reports';
import { TeamPage } from './pages/team';
import { TokensPage } from './pages/tokens';
import type { Session } from './session';

// The console's sections, each shown to the roles whose permissions read it (roles.ts).
const SECTIONS: readonly (readonly [key: string, label: string, needs: Permission])[] = [
  ['overview', 'Overview', 'overview.read'],
  ['reports', 'Reports', 'reports.read'],
  ['partners', 'Partners', 'partners.read'],
  ['deliveries', 'Deliveries', 'deliveries.read'],
  ['leads', 'Leads', 'leads.read'],
  ['agents', 'Agents', 'agents.read'],
  ['audit', 'Audit log', 'audit.read'],
  ['accounts', 'Accounts', 'accounts.read'],
  ['tokens', 'Tokens', 'tokens.manage'],
  // The agent workspace: the people who call leads (agent, supervisor).
  ['my-leads', 'My leads', 'workspace.own'],
  ['team', 'Team', 'workspace.team'],
];

export const sectionsFor = (permissions: readonly Permission[]) =>
  SECTIONS.filter(([, , needs]) => permissions.includes(needs));

export function SectionPage({ api, route, section, onSession }: SectionProps<Session>) {
  switch (section) {
    case 'partners':
      return route.path[1] ? (
        <PartnerPage key={route.path[1]} api={api} id={route.path[1]} />
      ) : (
        <PartnersPage api={api} />
      );
    case 'deliveries':
      return <DeliveriesPage api={api} params={route.params} />;
    case 'reports':
      return <ReportsPage api={api} params={route.params} />;
    case 'leads':
      return <LeadsPage api={api} params={route.params} />;
    case 'agents':
      return <AgentsPage api={api} />;
    case 'my-leads':
      return <MyLeadsPage api={api} id={route.path[1]} />;
    case 'team':
      return <TeamPage api={api} />;
    case 'audit':
      return <AuditPage api={api} params={route.params} />;
    case 'accounts':
      return <AccountsPage api={api} />;
    case 'tokens':
      return <TokensPage api={api} />;
    case 'account':
      return <AccountPage api={api} base="/api" zone={browserZone()} onSession={onSession} />;
    default:
      return <OverviewPage api={api} />;
  }
}
