import { PORTAL_PERMISSIONS, PORTAL_ROLE_PERMISSIONS, PORTAL_ROLES } from './portal-roles';
import { nullable, str } from '../shared/http/schema-parts';
import { signInSchemas } from './sign-in-schemas';
import type { PortalAccountDoc } from './identity-store';
import type { IdentityRealm } from './realm';
import './portal-access';

export const PORTAL_API = '/portal/api';
// The portal's session cookie: its own name and path, so a browser never sends it to the manager API.
export const PORTAL_COOKIE = 'lit_portal';
// Where a portal one-time link opens the portal (the token after #, so it reaches no server log).
export const portalLinkPath = (token: string): string => `/portal/#/link/${token}`;

// How many partners' people with one email sign in with it: every portal sign-in verifies its password
// against this many hashes (decoys filling in), whatever exists.
export const PORTAL_ACCOUNTS_PER_EMAIL = 4;

// The portal's sign-in schemas: the session's account is a partner's person.
export const portalSignInSchemas = signInSchemas({
  account: {
    id: str,
    name: str,
    role: { enum: PORTAL_ROLES },
    partner_id: str,
    partner_name: nullable('string'),
    method: str,
  },
  role: { enum: PORTAL_ROLES },
  permissions: PORTAL_PERMISSIONS,
});

// The partner portal's realm of the account base: a partner's people, each of one partner, with a
// portal role; their sign-in steps under /portal/api, their audit entries about their partner.
// The people of a disabled (or deleted) partner cannot sign in.
export function portalRealm(
  partnerOf: (id: string) => Promise<{ name: string; disabled: boolean } | null>,
): IdentityRealm<PortalAccountDoc> {
  return {
    name: 'portal',
    prefix: PORTAL_API,
    open: { portalAccess: 'public' },
    own: { portalAccess: 'portal.read' },
    deviceCookie: 'lit_portal_device',
    schemas: { auth: portalSignInSchemas.auth, passkey: portalSignInSchemas.passkey },
    unauthorized: 'portal_unauthorized',
    accountsPerEmail: PORTAL_ACCOUNTS_PER_EMAIL,
    rights: async (account) => ({
      portal_role: account.role,
      partner_id: account.partner_id,
      partner_name: (await partnerOf(account.partner_id))?.name,
    }),
    refusal: async (account) => ((await partnerOf(account.partner_id))?.disabled === false ? null : 'partner_disabled'),
    principal: (s, address) =>
      s.account_id && s.portal_role && s.partner_id
        ? {
            realm: 'portal',
            kind: 'account',
            id: s.account_id,
            name: s.name ?? s.account_id,
            role: s.portal_role,
            method: s.method ?? 'password',
            partnerId: s.partner_id,
            partnerScope: new Set([s.partner_id]),
            agentId: null,
            address,
          }
        : null,
    view: (s) => ({
      account: {
        id: s.account_id,
        name: s.name,
        role: s.portal_role,
        partner_id: s.partner_id,
        partner_name: s.partner_name ?? null,
        method: s.method,
      },
      permissions: s.portal_role ? PORTAL_ROLE_PERMISSIONS[s.portal_role] : [],
    }),
    audit: 'portal',
    partnerOf: (account) => account.partner_id,
  };
}
