import type { FastifyContextConfig, Session } from 'fastify';
import type { AuditAction, AuditActor } from '../shared/audit';
import type { ErrorCode } from '../shared/errors';
import type { Realm } from './realm-names';
import { ROLE_PERMISSIONS } from './roles';
import type { AuditLog } from '../manager/audit-log';
import { authSchemas, passkeySchemas, type signInSchemas } from '../manager/identity/identity-schemas';
import type { AccountBase, AccountDoc } from './identity-store';

// What a person does to their own account that the audit log records, in either realm.
export type AccountEvent =
  'sign_in' | 'sign_in_failed' | 'locked' | 'sign_out' | 'password_set' | 'second_factor_added';

// What differs between the realms in the code they share (the sign-in steps, sessions, audit).
export interface IdentityRealm<A extends AccountBase> {
  name: Realm;
  // Where its API lives ('/api', '/portal/api') and the route config of its public sign-in steps.
  prefix: string;
  open: FastifyContextConfig;
  // The device cookie a completed sign-in gives the browser (sign-in-throttle.ts), sent to `${prefix}/auth/`.
  deviceCookie: string;
  // The sign-in steps' schemas, naming the realm's roles and permissions.
  schemas: Pick<ReturnType<typeof signInSchemas>, 'auth' | 'passkey'>;
  // The 401 of a request with no session of this realm.
  unauthorized: ErrorCode;
  // How many accounts a password is tried against in a sign-in with an email (sign-in.ts): one where an
  // email names one account, more where several may share it (each of another partner).
  accountsPerEmail: number;
  // The rights a session keeps of its account: a snapshot, so a change of them ends the session.
  rights(account: A): Promise<Partial<Session>>;
  // Why the realm turns an active account away now (a portal person's partner is disabled), if it does.
  refusal?(account: A): Promise<ErrorCode | null>;
  // What a signed-in session says of its account, and what that account may do.
  view(s: Session): { account: Record<string, unknown>; permissions: readonly string[] };
  action: Readonly<Record<AccountEvent, AuditAction>>;
  // The partner an account's audit entries are about: a partner's person's own, so their manager sees them.
  partnerOf(account: A): string | null;
}

export const managerRealm: IdentityRealm<AccountDoc> = {
  name: 'manager',
  prefix: '/api',
  open: { access: 'public' },
  deviceCookie: 'lit_device',
  schemas: { auth: authSchemas, passkey: passkeySchemas },
  unauthorized: 'manager_unauthorized',
  accountsPerEmail: 1,
  rights: async (account) => ({
    role: account.role,
    partner_ids: account.partner_ids,
    agent_id: account.agent_id ?? null,
  }),
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
  action: {
    sign_in: 'account.sign_in',
    sign_in_failed: 'account.sign_in_failed',
    locked: 'account.locked',
    sign_out: 'account.sign_out',
    password_set: 'account.password_set',
    second_factor_added: 'account.second_factor_added',
  },
  partnerOf: () => null,
};

// An audit entry of a person's own account event, in their realm's terms.
export function auditAccount<A extends AccountBase>(
  audit: AuditLog,
  realm: IdentityRealm<A>,
  actor: AuditActor,
  event: AccountEvent,
  account: A | null,
  details: Record<string, unknown> = {},
): Promise<void> {
  return audit.record(actor, realm.action[event], {
    target: account?._id ?? null,
    partnerId: account ? realm.partnerOf(account) : null,
    details,
  });
}
