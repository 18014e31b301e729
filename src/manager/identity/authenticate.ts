import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sha256Hex } from '../../shared/crypto/lookup-hash';
import { constantTimeIncludes } from '../../shared/crypto/tokens';
import { ApiError } from '../../shared/errors';
import { bearerToken } from '../../shared/http/bearer-token';
import type { Clock } from '../../shared/clock';
import {
  auditActor,
  decoratePrincipal,
  inScope,
  principalIn,
  type ManagerPrincipal,
  type Principal,
} from '../../identity/principal';
import { managerRealm, partnerScopeOf } from '../../identity/manager-realm';
import { AUDITED_PERMISSIONS, can, rolesWith, type Permission } from '../../identity/roles';
import type { AuditLog } from '../audit-log';
import type { ServiceTokens } from './service-tokens';
import type { TokenThrottle } from './token-throttle';
import type { SessionTimeouts } from '../../identity/session-store';
import { SESSION_COOKIE } from './session-cookie';
import { documentAccess } from '../../identity/route-access';
import { sessionPrincipal } from '../../identity/session-check';

// What a route asks of who calls it: a permission of the role matrix (roles.ts), only to be signed
// in (the account's own settings), or nothing (the sign-in steps, which read the session themselves).
export type RouteAccess = Permission | 'signed_in' | 'public';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
    // The route's :id is a partner's: outside an affiliate manager's partners it is unknown (404).
    partnerParam?: boolean;
  }
}

export interface AuthenticateDeps {
  breakGlassTokens: readonly string[];
  serviceTokens: ServiceTokens;
  // Failed bearer tokens: counted per address (refused past the limit) and audited.
  tokenFailures: TokenThrottle;
  audit: Pick<AuditLog, 'record'>;
  timeouts: SessionTimeouts;
  clock: Clock;
}

// Every route registered in `app` after this states its access, or the server does not start; the
// access is published in the OpenAPI document (x-roles). Each request is then authenticated (a
// bearer token, or the session cookie with a CSRF token on any request that changes something)
// and authorised before its body is read.
export function authenticate(app: FastifyInstance, deps: AuthenticateDeps): void {
  const breakGlass = deps.breakGlassTokens.map((t) => sha256Hex(t));
  decoratePrincipal(app);

  app.addHook('onRoute', (route) => {
    const access = route.config?.access;
    if (!access)
      throw new Error(
        `${String(route.method)} ${route.url} states no access (config.access): every manager route needs one`,
      );
    if (AUDITED_PERMISSIONS.includes(access as Permission) && !route.config?.audit)
      throw new Error(`${String(route.method)} ${route.url} needs ${access}: its refusals are audited (config.audit)`);
    // The sign-in steps need no credential (each reads the session the step before it left).
    documentAccess(
      route,
      access,
      access === 'public' ? [] : access === 'signed_in' ? 'any signed-in account' : rolesWith(access),
    );
  });

  app.addHook('onRequest', async (req) => {
    const { access, partnerParam } = req.routeOptions.config;
    if (access === 'public' || access === undefined) return;
    req.principal = await principalOf(req, deps, breakGlass);
    req.actor = auditActor(req.principal);
    const principal = principalIn(req, 'manager');
    if (access !== 'signed_in' && !can(principal.role, access)) throw new ApiError('forbidden', { permission: access });
    const partnerId = (req.params as { id?: string }).id;
    if (partnerParam && partnerId !== undefined && !inScope(principal, partnerId)) throw new ApiError('not_found');
  });
}

async function principalOf(
  req: FastifyRequest,
  deps: AuthenticateDeps,
  breakGlass: readonly string[],
): Promise<Principal> {
  const token = bearerToken(req.headers.authorization);
  // One credential a request: a token beside a session cookie is refused, so neither a stale nor a
  // forged cookie rides along unnoticed (the console never sends a token, the CLI never a cookie).
  if (token !== null && req.cookies[SESSION_COOKIE] !== undefined) throw new ApiError('manager_unauthorized');
  if (token !== null) return tokenPrincipal(req, token, deps, breakGlass);
  return sessionPrincipal(req, managerRealm, deps);
}

async function tokenPrincipal(
  req: FastifyRequest,
  token: string,
  deps: AuthenticateDeps,
  breakGlass: readonly string[],
): Promise<ManagerPrincipal> {
  const wait = await deps.tokenFailures.wait(req.ip);
  if (wait > 0) throw new ApiError('token_throttled', { seconds: wait }, { 'retry-after': String(wait) });
  const service = await deps.serviceTokens.authenticate(token);
  if (service) {
    return {
      realm: 'manager',
      kind: 'service_account',
      id: service.id,
      name: service.name,
      role: service.role,
      method: 'token',
      partnerScope: partnerScopeOf(service.role, service.partner_ids),
      agentId: null,
      address: req.ip,
    };
  }
  // Digests are compared rather than tokens, so the time taken does not depend on a guess's length.
  const digest = sha256Hex(token);
  if (!constantTimeIncludes(breakGlass, digest)) {
    await deps.tokenFailures.fail(req.ip);
    const anonymous = { id: 'anonymous', name: 'anonymous', method: 'token', address: req.ip } as const;
    await deps.audit.record(anonymous, 'service_account.token_refused');
    throw new ApiError('manager_unauthorized');
  }
  const id = `break-glass:${digest.slice(0, 6)}`;
  return {
    realm: 'manager',
    kind: 'break_glass',
    id,
    name: 'break-glass token',
    role: 'owner',
    method: 'break_glass',
    partnerScope: null,
    agentId: null,
    address: req.ip,
  };
}
