import type { PortalPermission } from '../shared/identity/portal-roles';
import type { Api } from '../ui-kit/api';
import type { Route } from '../ui-kit/router';
import { DeliveriesPage } from './pages/deliveries';
import { IntegrationPage } from './pages/integration';
import { LeadsPage } from './pages/leads';
import { OverviewPage } from './pages/overview';
import { UsersPage } from './pages/users';

// The portal's sections, each shown to the roles whose permissions read it (portal-roles.ts): Users
// to a partner_admin only.
const SECTIONS: readonly (readonly [key: string, label: string, needs: PortalPermission])[] = [
  ['overview', 'Overview', 'portal.read'],
  ['leads', 'Leads', 'portal.read'],
  ['deliveries', 'Callbacks and postbacks', 'portal.read'],
  ['integration', 'Integration', 'portal.read'],
  ['users', 'Users', 'portal.users'],
];

export const sectionsFor = (permissions: readonly PortalPermission[]) =>
  SECTIONS.filter(([, , needs]) => permissions.includes(needs));

export function PortalPage({ api, route, section }: { api: Api; route: Route; section: string }) {
  switch (section) {
    case 'leads':
      return <LeadsPage api={api} params={route.params} id={route.path[1]} />;
    case 'deliveries':
      return <DeliveriesPage api={api} params={route.params} />;
    case 'integration':
      return <IntegrationPage api={api} />;
    case 'users':
      return <UsersPage api={api} />;
    default:
      return <OverviewPage api={api} params={route.params} />;
  }
}
