import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuditActor, AuditRecorder } from '../shared/audit';
import type { Clock } from '../shared/clock';
import { ApiError } from '../shared/errors';
import type { AccountStore } from './accounts';
import type { SignInNotice } from './sign-in-notice';
import { checkCsrf, csrfToken } from './csrf';
import type { AccountBase } from './identity-store';
import { auditAccount, type IdentityRealm } from './realm';
import type { SessionStage } from './session-state';
import type { Attempt, SignIn } from './sign-in';

export { checkCsrf, csrfToken } from './csrf';

// How long the second step of a sign-in may follow the password.
export const STEP_MS = 5 * 60 * 1000;

// A new session id for a new stage of a sign-in (OWASP: a new id at every change of privilege),
// holding its realm and a snapshot of the account's rights.
export async function establish<A extends AccountBase>(
  req: FastifyRequest,
  realm: IdentityRealm<A>,
  account: A,
  stage: SessionStage,
  method: 'password' | 'passkey' | 'sso',
  clock: Clock,
): Promise<void> {
  // Every way in (password, passkey, one-time link) passes here: none starts a session the realm refuses.
  const refused = await realm.refusal?.(account);
  if (refused) throw new ApiError(refused);
  const rights = await realm.rights(account);
  await req.session.regenerate();
  const s = req.session;
  const now = clock.now().getTime();
  s.realm = realm.name;
  s.account_id = account._id;
  s.stage = stage;
  s.method = method;
  s.issued_at = now;
  s.step_until = stage === 'signed_in' ? undefined : now + STEP_MS;
  s.name = account.name;
  Object.assign(s, rights);
}

// Whether the session was made in `realm` (sessions from before realms were the manager's).
export const inRealm = (req: FastifyRequest, realm: IdentityRealm<AccountBase>): boolean =>
  (req.session?.realm ?? 'manager') === realm.name;

// The account id of a sign-in of this realm that stopped at `stage` and has not expired.
function pendingAccount(
  req: FastifyRequest,
  realm: IdentityRealm<AccountBase>,
  stages: readonly SessionStage[],
  clock: Clock,
): string {
  const s = req.session;
  const live =
    s?.account_id &&
    inRealm(req, realm) &&
    s.stage &&
    stages.includes(s.stage) &&
    (s.stage === 'signed_in' || (s.step_until ?? 0) > clock.now().getTime());
  if (!live) throw new ApiError('sign_in_step_missing');
  return s.account_id as string;
}

// What the pages learn of their session: the stage, who, what they may do, the CSRF token.
export function sessionView<A extends AccountBase>(req: FastifyRequest, realm: IdentityRealm<A>) {
  const s = req.session;
  const signedIn = s.stage === 'signed_in' && inRealm(req, realm as IdentityRealm<AccountBase>);
  const who = signedIn ? realm.view(s) : null;
  return {
    stage: s.stage ?? null,
    account: who?.account ?? null,
    permissions: who?.permissions ?? [],
    csrf_token: csrfToken(req),
  };
}

export const accountActor = (account: AccountBase, method: AuditActor['method'], address: string): AuditActor => ({
  id: account._id,
  name: account.name,
  method,
  address,
});

export interface SignInSteps<A extends AccountBase> {
  realm: IdentityRealm<A>;
  accounts: AccountStore<A>;
  signIn: SignIn<A>;
  audit: AuditRecorder;
  clock: Clock;
  // Mails the account when it signs in from a network it had not used; null when mail is off.
  notice: SignInNotice | null;
}

// Where a sign-in step comes from: the client's address and the realm's device cookie, if sent.
export const attemptOf = <A extends AccountBase>(req: FastifyRequest, realm: IdentityRealm<A>): Attempt => ({
  address: req.ip,
  device: req.cookies?.[realm.deviceCookie],
});

// The active account of a sign-in that stopped at one of `stages` (its CSRF token checked).
export async function pendingStep<A extends AccountBase>(
  d: SignInSteps<A>,
  req: FastifyRequest,
  stages: readonly SessionStage[],
): Promise<A> {
  checkCsrf(req);
  const account = await d.accounts.find(pendingAccount(req, d.realm as IdentityRealm<AccountBase>, stages, d.clock));
  if (!account || account.status !== 'active') throw new ApiError('sign_in_step_missing');
  return account;
}

// The last step: a signed-in session with a new id, the browser's device cookie, the sign-in recorded
// and audited.
export async function completeSignIn<A extends AccountBase>(
  d: SignInSteps<A>,
  req: FastifyRequest,
  reply: FastifyReply,
  account: A,
  method: 'password' | 'passkey',
  details: Record<string, unknown>,
) {
  await establish(req, d.realm, account, 'signed_in', method, d.clock);
  reply.setCookie(d.realm.deviceCookie, await d.signIn.completed(account, attemptOf(req, d.realm)), {
    path: `${d.realm.prefix}/auth/`,
    httpOnly: true,
    secure: 'auto',
    sameSite: 'strict',
    maxAge: d.signIn.deviceMaxAgeS,
  });
  await d.notice?.signedIn(d.realm.name, account, req.ip);
  await d.accounts.update(account._id, { last_sign_in_at: d.clock.now() });
  await auditAccount(d.audit, d.realm, accountActor(account, method, req.ip), 'sign_in', account, details);
  return sessionView(req, d.realm);
}
