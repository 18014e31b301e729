// Who may do what in the manager API: one matrix, published in docs/managers.md and in the manager
// OpenAPI document (each operation's x-roles), enforced on every route by
// src/manager/identity/authenticate.ts, which also refuses to start a route without a permission.
export const ROLES = [
  'owner',
  'admin',
  'affiliate_manager',
  'support',
  'analyst',
  'auditor',
  'supervisor',
  'agent',
] as const;
export type Role = (typeof ROLES)[number];

export const PERMISSIONS = [
  'partners.read',
  'partners.create',
  'partners.settings',
  'partners.secrets',
  'partners.test',
  'deliveries.read',
  'deliveries.retry',
  'replays',
  'endpoints.read',
  'endpoints.resume',
  'agents.read',
  'agents.write',
  'leads.read',
  'leads.erase',
  'reports.read',
  'overview.read',
  'audit.read',
  'accounts.read',
  'accounts.manage',
  'tokens.manage',
  'contacts.reveal',
  'workspace.own',
  'workspace.team',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const ALL: readonly Permission[] = PERMISSIONS;
// What only the people who work leads do: a lead's contact goes to its agent's side, never to who runs the service;
// the workspace works as an agent record (workspace.own) or a team of them (workspace.team), which no owner or admin is.
const LEAD_WORK: readonly Permission[] = ['contacts.reveal', 'workspace.own', 'workspace.team'];
const RUNS_SERVICE: readonly Permission[] = ALL.filter((p) => !LEAD_WORK.includes(p));

export const ROLE_PERMISSIONS: Readonly<Record<Role, readonly Permission[]>> = {
  owner: RUNS_SERVICE,
  admin: RUNS_SERVICE.filter((p) => p !== 'audit.read'),
  affiliate_manager: [
    'partners.read',
    'partners.settings',
    'partners.secrets',
    'partners.test',
    'deliveries.read',
    'deliveries.retry',
    'replays',
    'endpoints.read',
    'endpoints.resume',
    'leads.read',
    'reports.read',
    'audit.read',
  ],
  support: [
    'partners.read',
    'partners.test',
    'deliveries.read',
    'deliveries.retry',
    'endpoints.read',
    'endpoints.resume',
  ],
  analyst: ['partners.read', 'leads.read', 'reports.read', 'overview.read'],
  auditor: ['audit.read'],
  supervisor: ['agents.read', 'contacts.reveal', 'workspace.team'],
  agent: ['contacts.reveal', 'workspace.own'],
};

// Permissions whose every refusal after authentication is audited: who tried to read the audit log, accounts or
// a contact, or to change accounts, tokens, secrets or a lead's personal data. A route guarded by one states its
// audit action (config.audit), or the server does not start.
export const AUDITED_PERMISSIONS: readonly Permission[] = [
  'audit.read',
  'accounts.read',
  'accounts.manage',
  'tokens.manage',
  'contacts.reveal',
  'partners.secrets',
  'leads.erase',
];

// Roles that see only the partners assigned to them: elsewhere a partner outside the scope is unknown (404).
export const PARTNER_SCOPED_ROLES: readonly Role[] = ['affiliate_manager'];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export function can(role: Role, permission: Permission): boolean {
  return ROLE_PERMISSIONS[role].includes(permission);
}

export function rolesWith(permission: Permission): Role[] {
  return ROLES.filter((r) => can(r, permission));
}

// Whether `actor` may give `target` (an invitation, a role change, a service token) or change an account that
// has it: an owner gives any role; an admin only a role below admin whose every permission it holds itself, so
// nobody grants their way to what the matrix keeps from them (the audit log, a lead's contact).
export function mayGrant(actor: Role, target: Role): boolean {
  if (actor === 'owner') return true;
  if (actor !== 'admin' || target === 'owner' || target === 'admin') return false;
  return ROLE_PERMISSIONS[target].every((p) => can(actor, p));
}
