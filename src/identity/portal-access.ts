import type { AuditActor } from '../shared/audit';
import type { PortalPermission, PortalRole } from './portal-roles';

// What a portal route asks of who calls it: a portal permission, or nothing (the sign-in steps).
export type PortalAccess = PortalPermission | 'public';

// A partner's person signed in to the portal. The partner comes from the session alone: no portal
// route takes a partner id from the request.
export interface PortalPrincipal {
  accountId: string;
  name: string;
  role: PortalRole;
  partnerId: string;
  actor: AuditActor;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    portalAccess?: PortalAccess;
  }
  interface FastifyRequest {
    portal: PortalPrincipal;
  }
}
