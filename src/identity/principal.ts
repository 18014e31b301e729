import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuditActor } from '../shared/audit';
import type { PortalRole } from './portal-roles';
import type { Realm } from './realm-names';
import type { Role } from './roles';

// How a request proved who made it.
export type AuthMethod = 'password' | 'passkey' | 'sso' | 'token' | 'break_glass';

// Who made a request, in the realm that authenticated it. Read once per request, by the realm's
// authentication; a route reads it as `req.principal`, whichever realm it serves.
interface PrincipalBase {
  id: string;
  name: string;
  method: AuthMethod;
  // The partners the principal may see: null, every partner; a partner's person, their own alone.
  partnerScope: ReadonlySet<string> | null;
  // The agent record an agent's account works as (null for everyone else).
  agentId: string | null;
  address: string;
}

// In the manager's realm: an account signed in through a session, a service account's token, or a
// break-glass MANAGER_TOKENS token (an owner with no account).
export interface ManagerPrincipal extends PrincipalBase {
  realm: 'manager';
  kind: 'account' | 'service_account' | 'break_glass';
  role: Role;
}

// In the portal's realm: a partner's person, whose partner comes from the session alone (no portal
// route takes a partner id from the request).
export interface PortalPrincipal extends PrincipalBase {
  realm: 'portal';
  kind: 'account';
  role: PortalRole;
  partnerId: string;
}

export type Principal = ManagerPrincipal | PortalPrincipal;
type InRealm<R extends Realm> = Extract<Principal, { realm: R }>;

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
    // Who made the request, as the audit log names them.
    actor: AuditActor;
  }
}

// The request's principal and actor, filled in by the realm's authentication registered in `app`.
export function decoratePrincipal(app: FastifyInstance): void {
  app.decorateRequest<Principal>('principal', null as unknown as Principal);
  app.decorateRequest('actor', null as unknown as AuditActor);
}

// What the audit log keeps of a principal (never a token or a session id).
export function auditActor(p: Principal): AuditActor {
  return { id: p.id, name: p.name, method: p.method, address: p.address };
}

// Whether the principal may see a partner's data at all.
export function inScope(p: Principal, partnerId: string): boolean {
  return p.partnerScope === null || p.partnerScope.has(partnerId);
}

// The partner an audit entry of the principal's own doing is about: a partner's person's, so their
// manager sees it.
export function ownPartner(p: Principal): string | null {
  return p.realm === 'portal' ? p.partnerId : null;
}

// The request's principal as the realm of its route knows it. Each realm's routes are registered
// behind that realm's authentication alone, so another realm's here is a wiring mistake.
export function principalIn<R extends Realm>(req: FastifyRequest, realm: R): InRealm<R> {
  const p = req.principal;
  if (p?.realm !== realm) throw new Error(`${req.method} ${req.url} reached without the ${realm} realm's principal`);
  return p as InRealm<R>;
}

// The partner of a portal request: the signed-in person's own.
export function portalPartner(req: FastifyRequest): string {
  return principalIn(req, 'portal').partnerId;
}
