import type { PortalPermission } from '../../identity/portal-roles';
import { AccountPage } from '../../ui-kit/account-page';
import type { SectionProps } from '../../ui-kit/app-shell';
import { DeliveriesPage } from './pages/deliveries';
import { IntegrationPage } from './pages/integration';
import { LeadsPage } from './pages/leads';
import { OverviewPage } from './pages/overview';
import { TimeZoneForm } from './parts/time-zone-form';
import { UsersPage } from './pages/users';
import type { PortalSession } from './session';
import { useZone } from './zone';

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

export function PortalPage({ api, route, section, onSession }: SectionProps<PortalSession>) {
  const { zone } = useZone();
  switch (section) {
    case 'account':
      return (
        <>
          <AccountPage api={api} base="/portal/api" zone={zone} onSession={onSession} />
          <TimeZoneForm api={api} />
        </>
      );
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
