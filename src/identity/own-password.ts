import type { FastifyRequest } from 'fastify';
import type { Clock } from '../shared/clock';
import { ApiError } from '../shared/errors';
import type { AccountStore } from './accounts';
import type { AccountBase } from './identity-store';
import type { OneTimeLinks } from './links';
import { hashPassword, passwordProblem } from './passwords';
import type { IdentityRealm } from './realm';
import { attemptOf, establish } from './session-actions';
import type { RedisSessionStore } from './session-store';
import type { SignIn } from './sign-in';

export interface OwnPasswordDeps<A extends AccountBase> {
  accounts: AccountStore<A>;
  sessions: RedisSessionStore;
  signIn: SignIn<A>;
  links: OneTimeLinks;
  clock: Clock;
}

export interface PasswordChange {
  current_password: string;
  new_password: string;
}

// A signed-in person's new password, in either realm: the current one proves it is them (its guesses
// throttled and audited as sign-ins), and every other session and every open one-time link of the
// account end (one may be a thief's). This one gets a new id (OWASP: a new id at every change of
// privilege). The caller audits it.
export async function changeOwnPassword<A extends AccountBase>(
  d: OwnPasswordDeps<A>,
  realm: IdentityRealm<A>,
  req: FastifyRequest<{ Body: PasswordChange }>,
  accountId: string,
): Promise<A> {
  const account = await d.accounts.find(accountId);
  if (!account) throw new ApiError(realm.unauthorized);
  await d.signIn.currentPassword(account, req.body.current_password, attemptOf(req, realm), 'current_password');
  const problem = passwordProblem(req.body.new_password);
  if (problem) throw new ApiError('invalid_request', { detail: `/new_password: ${problem}` });
  const updated = await d.accounts.update(account._id, { password_hash: await hashPassword(req.body.new_password) });
  if (!updated) throw new ApiError(realm.unauthorized);
  await d.links.endAll(account._id);
  await d.sessions.revokeAll(account._id);
  await establish(req, realm, updated, 'signed_in', req.session.method ?? 'password', d.clock);
  return updated;
}
