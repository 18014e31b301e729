import type { PortalPermission } from './portal-roles';

// What a portal route asks of who calls it: a portal permission, or nothing (the sign-in steps).
export type PortalAccess = PortalPermission | 'public';

declare module 'fastify' {
  interface FastifyContextConfig {
    portalAccess?: PortalAccess;
  }
}
