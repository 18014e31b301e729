import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { PortalPermission, PortalRole } from '../../identity/portal-roles';
import type { AuthSession } from '../../ui-kit/auth-session';

// The portal's own sign-in routes: a portal session never works on the console's, nor the other way.
export const AUTH = '/portal/api/auth';

// What GET /portal/api/session says of this browser's session.
export interface PortalSession extends AuthSession {
  account: { id: string; name: string; role: PortalRole; partner_id: string; partner_name: string | null } | null;
  permissions: PortalPermission[];
}

export const SessionContext = createContext<PortalSession | null>(null);

// Pages show only the buttons the role allows (a partner_viewer sees none); the server refuses the
// rest whatever the page shows.
export function useCan(): (permission: PortalPermission) => boolean {
  const session = useContext(SessionContext);
  return (permission) => session?.permissions.includes(permission) ?? false;
}
