import type { FastifyContextConfig, Session } from 'fastify';
import type { AuditAction, AuditActor, AuditRecorder } from '../shared/audit';
import type { ErrorCode } from '../shared/errors';
import type { Realm } from './realm-names';
import type { signInSchemas } from './sign-in-schemas';
import type { AccountBase } from './identity-store';
import type { Principal } from './principal';

// What a person does to their own account that the audit log records, in either realm.
export type AccountEvent =
  'sign_in' | 'sign_in_failed' | 'locked' | 'sign_out' | 'password_set' | 'second_factor_added' | 'sessions_revoked';

// What differs between the realms in the code they share (the sign-in steps, sessions, audit).
export interface IdentityRealm<A extends AccountBase> {
  name: Realm;
  // Where its API lives ('/api', '/portal/api') and the route config of its public sign-in steps.
  prefix: string;
  open: FastifyContextConfig;
  // The route config of what any signed-in person of the realm may do to their own account.
  own: FastifyContextConfig;
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
  // Who a signed-in session of the realm is, as its routes read them (req.principal); null when the
  // session lacks the realm's rights.
  principal(s: Session, address: string): Principal | null;
  // What a signed-in session says of its account, and what that account may do.
  view(s: Session): { account: Record<string, unknown>; permissions: readonly string[] };
  // How the realm's audit actions begin: `account.sign_in` in the manager's, `portal.sign_in` in the portal's.
  audit: 'account' | 'portal';
  // The partner an account's audit entries are about: a partner's person's own, so their manager sees them.
  partnerOf(account: A): string | null;
}

// The audit action of an account event in `realm`.
export function accountAction(realm: Pick<IdentityRealm<AccountBase>, 'audit'>, event: AccountEvent): AuditAction {
  return `${realm.audit}.${event}` satisfies `${IdentityRealm<AccountBase>['audit']}.${AccountEvent}` & AuditAction;
}

// An audit entry of a person's own account event, in their realm's terms.
export function auditAccount<A extends AccountBase>(
  audit: AuditRecorder,
  realm: IdentityRealm<A>,
  actor: AuditActor,
  event: AccountEvent,
  account: A | null,
  details: Record<string, unknown> = {},
): Promise<void> {
  return audit.record(actor, accountAction(realm, event), {
    target: account?._id ?? null,
    partnerId: account ? realm.partnerOf(account) : null,
    details,
  });
}
