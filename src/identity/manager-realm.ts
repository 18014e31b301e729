import { authSchemas, passkeySchemas } from './manager-sign-in-schemas';
import type { AccountDoc } from './identity-store';
import type { IdentityRealm } from './realm';
import type { ManagerPrincipal } from './principal';
import { PARTNER_SCOPED_ROLES, ROLE_PERMISSIONS, type Role } from './roles';

// The manager's realm of the account base: the service's own staff and agents, with a role of the
// matrix (roles.ts) and the partners an affiliate manager looks after; their sign-in steps under /api.
export const managerRealm: IdentityRealm<AccountDoc> = {
  name: 'manager',
  prefix: '/api',
  open: { access: 'public' },
  own: { access: 'signed_in' },
  deviceCookie: 'lit_device',
  schemas: { auth: authSchemas, passkey: passkeySchemas },
  unauthorized: 'manager_unauthorized',
  accountsPerEmail: 1,
  rights: async (account) => ({
    role: account.role,
    partner_ids: account.partner_ids,
    agent_id: account.agent_id ?? null,
  }),
  principal: (s, address) =>
    s.account_id && s.role
      ? {
          realm: 'manager',
          kind: 'account',
          id: s.account_id,
          name: s.name ?? s.account_id,
          role: s.role,
          method: s.method ?? 'password',
          partnerScope: partnerScopeOf(s.role, s.partner_ids ?? []),
          agentId: s.agent_id ?? null,
          address,
        }
      : null,
  view: (s) => ({
    account: {
      id: s.account_id,
      name: s.name,
      role: s.role,
      partner_ids: s.partner_ids ?? [],
      agent_id: s.agent_id ?? null,
      method: s.method,
    },
    permissions: s.role ? ROLE_PERMISSIONS[s.role] : [],
  }),
  audit: 'account',
  partnerOf: () => null,
};

// The partners a manager's principal of `role` sees: its assigned ones for a partner-scoped role, else every one.
export function partnerScopeOf(role: Role, partnerIds: readonly string[]): ManagerPrincipal['partnerScope'] {
  return PARTNER_SCOPED_ROLES.includes(role) ? new Set(partnerIds) : null;
}
