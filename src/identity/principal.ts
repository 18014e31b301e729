import type { AuditActor } from '../shared/audit';
import type { Role } from './roles';

// How a request proved who made it.
export type AuthMethod = 'password' | 'passkey' | 'sso' | 'token' | 'break_glass';

// Who made a manager request: an account signed in through a session, a service account's token, or
// a break-glass MANAGER_TOKENS token (an owner with no account). Read once per request.
export interface Principal {
  kind: 'account' | 'service_account' | 'break_glass';
  id: string;
  name: string;
  role: Role;
  method: AuthMethod;
  // The partners an affiliate manager looks after; null: every partner.
  partnerScope: ReadonlySet<string> | null;
  // The agent record an agent's account works as (null for everyone else).
  agentId: string | null;
  address: string;
}

// What the audit log keeps of a principal (never a token or a session id).
export function auditActor(p: Principal): AuditActor {
  return { id: p.id, name: p.name, method: p.method, address: p.address };
}

// Whether the principal may see a partner's data at all.
export function inScope(p: Principal, partnerId: string): boolean {
  return p.partnerScope === null || p.partnerScope.has(partnerId);
}
