import type { FastifyRequest } from 'fastify';
import type { AuditActor } from '../../shared/audit';
import type { Clock } from '../../shared/clock';
import { ApiError } from '../../shared/errors';
import type { AuditLog } from '../audit-log';
import type { AccountStore } from './accounts';
import { CSRF_HEADER, csrfTokens } from './authenticate';
import type { AccountDoc } from './identity-store';
import { ROLE_PERMISSIONS } from '../../shared/identity/roles';
import type { SessionStage } from './session-state';

// How long the second step of a sign-in may follow the password.
export const STEP_MS = 5 * 60 * 1000;

// A new session id for a new stage of a sign-in (OWASP: a new id at every change of privilege),
// holding a snapshot of the account's rights.
export async function establish(req: FastifyRequest, account: AccountDoc, stage: SessionStage, method: 'password' | 'passkey' | 'sso', clock: Clock): Promise<void> {
  await req.session.regenerate();
  const s = req.session;
  const now = clock.now().getTime();
  s.account_id = account._id;
  s.stage = stage;
  s.method = method;
  s.issued_at = now;
  s.step_until = stage === 'signed_in' ? undefined : now + STEP_MS;
  s.role = account.role;
  s.name = account.name;
  s.partner_ids = account.partner_ids;
  s.agent_id = account.agent_id ?? null;
}

// The account id of a sign-in that stopped at `stage` and has not expired.
function pendingAccount(req: FastifyRequest, stages: readonly SessionStage[], clock: Clock): string {
  const s = req.session;
  const live = s?.account_id && s.stage && stages.includes(s.stage) && (s.stage === 'signed_in' || (s.step_until ?? 0) > clock.now().getTime());
  if (!live) throw new ApiError('sign_in_step_missing');
  return s.account_id as string;
}

// The token the console sends in X-CSRF-Token with every request that changes something.
export function csrfToken(req: FastifyRequest): string {
  const s = req.session;
  s._csrf ??= csrfTokens.secretSync();
  return csrfTokens.create(s._csrf);
}

// What the console learns of its session: the stage, who, what the role may do, the CSRF token.
export function sessionView(req: FastifyRequest) {
  const s = req.session;
  const signedIn = s.stage === 'signed_in' && s.role !== undefined;
  return {
    stage: s.stage ?? null,
    account: signedIn ? { id: s.account_id, name: s.name, role: s.role, partner_ids: s.partner_ids ?? [], agent_id: s.agent_id ?? null, method: s.method } : null,
    permissions: signedIn && s.role ? ROLE_PERMISSIONS[s.role] : [],
    csrf_token: csrfToken(req),
  };
}

export const accountActor = (account: AccountDoc, method: AuditActor['method'], address: string): AuditActor =>
  ({ id: account._id, name: account.name, method, address });

// A step of a sign-in under way changes its session: it carries the session's CSRF token too.
export function checkCsrf(req: FastifyRequest): void {
  const given = req.headers[CSRF_HEADER];
  if (typeof given !== 'string' || !req.session._csrf || !csrfTokens.verify(req.session._csrf, given)) throw new ApiError('csrf_invalid');
}

export interface SignInSteps {
  accounts: AccountStore;
  audit: AuditLog;
  clock: Clock;
}

// The active account of a sign-in that stopped at one of `stages` (its CSRF token checked).
export async function pendingStep(d: SignInSteps, req: FastifyRequest, stages: readonly SessionStage[]): Promise<AccountDoc> {
  checkCsrf(req);
  const account = await d.accounts.find(pendingAccount(req, stages, d.clock));
  if (!account || account.status !== 'active') throw new ApiError('sign_in_step_missing');
  return account;
}

// The last step: a signed-in session with a new id, the sign-in recorded and audited.
export async function completeSignIn(d: SignInSteps, req: FastifyRequest, account: AccountDoc, method: 'password' | 'passkey', details: Record<string, unknown>) {
  await establish(req, account, 'signed_in', method, d.clock);
  await d.accounts.update(account._id, { last_sign_in_at: d.clock.now() });
  await d.audit.record(accountActor(account, method, req.ip), 'account.sign_in', { target: account._id, details });
  return sessionView(req);
}
