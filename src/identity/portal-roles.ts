// Who may do what in the partner portal (/portal/): a partner's own people, never a manager. Kept
// apart from the manager's matrix (roles.ts): a portal account signs in only to the portal, and its
// partner comes from its session alone.
export const PORTAL_ROLES = ['partner_admin', 'partner_viewer'] as const;
export type PortalRole = (typeof PORTAL_ROLES)[number];

// read: the partner's own pages; act: retries, replays, tests, endpoint resume, settings and key
// rotation; users: inviting and disabling the partner's colleagues.
export const PORTAL_PERMISSIONS = ['portal.read', 'portal.act', 'portal.users'] as const;
export type PortalPermission = (typeof PORTAL_PERMISSIONS)[number];

export const PORTAL_ROLE_PERMISSIONS: Readonly<Record<PortalRole, readonly PortalPermission[]>> = {
  partner_admin: PORTAL_PERMISSIONS,
  partner_viewer: ['portal.read'],
};

export function isPortalRole(value: unknown): value is PortalRole {
  return typeof value === 'string' && (PORTAL_ROLES as readonly string[]).includes(value);
}

export function portalCan(role: PortalRole, permission: PortalPermission): boolean {
  return PORTAL_ROLE_PERMISSIONS[role].includes(permission);
}
