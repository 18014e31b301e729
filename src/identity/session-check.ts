import type { FastifyRequest, Session } from 'fastify';
import type { Clock } from '../shared/clock';
import { ApiError, type ErrorCode } from '../shared/errors';
import type { Realm } from './realm-names';
import type { IdentityRealm } from './realm';
import type { Principal } from './principal';
import type { AccountBase } from './identity-store';
import { checkCsrf, SAFE_METHODS } from './csrf';
import type { SessionTimeouts } from './session-store';
import './session-state';

export interface SessionCheckDeps {
  timeouts: SessionTimeouts;
  clock: Clock;
}

// The request's session when it is signed in to `realm` and younger than the absolute timeout (an
// older one is ended), with its CSRF token checked on a request that changes something. Otherwise
// `unauthorized`: a session of the other realm is refused here even if its id were presented.
export async function signedInSession(
  req: FastifyRequest,
  realm: Realm,
  deps: SessionCheckDeps,
  unauthorized: ErrorCode,
): Promise<Session> {
  const s = req.session;
  if (!s?.account_id || s.stage !== 'signed_in' || (s.realm ?? 'manager') !== realm) throw new ApiError(unauthorized);
  await refuseExpired(req, deps);
  if (!SAFE_METHODS.has(req.method)) checkCsrf(req);
  return s;
}

// Who the request's signed-in session of `realm` is (signedInSession's checks, then the realm's rights).
export async function sessionPrincipal(
  req: FastifyRequest,
  realm: Pick<IdentityRealm<AccountBase>, 'name' | 'unauthorized' | 'principal'>,
  deps: SessionCheckDeps,
): Promise<Principal> {
  const principal = realm.principal(await signedInSession(req, realm.name, deps, realm.unauthorized), req.ip);
  if (!principal) throw new ApiError(realm.unauthorized);
  return principal;
}

// Ends a session older than the absolute timeout, at whatever stage: 401 session_expired.
export async function refuseExpired(req: FastifyRequest, deps: SessionCheckDeps): Promise<void> {
  const s = req.session;
  if ((s.issued_at ?? 0) + deps.timeouts.absoluteMs > deps.clock.now().getTime()) return;
  await new Promise<void>((resolve, reject) => s.destroy((err?: unknown) => (err ? reject(err) : resolve())));
  throw new ApiError('session_expired');
}
