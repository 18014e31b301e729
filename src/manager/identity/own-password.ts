import type { FastifyRequest } from 'fastify';
import type { Clock } from '../../shared/clock';
import { ApiError } from '../../shared/errors';
import type { AccountStore } from './accounts';
import type { AccountBase } from './identity-store';
import { hashPassword, passwordProblem, verifyPassword } from './passwords';
import type { OneTimeLinks } from './links';
import type { IdentityRealm } from './realm';
import { establish } from './session-actions';
import type { RedisSessionStore } from './session-store';

export interface OwnPasswordDeps<A extends AccountBase> {
  accounts: AccountStore<A>;
  sessions: RedisSessionStore;
  links: OneTimeLinks;
  clock: Clock;
}

export interface PasswordChange {
  current_password: string;
  new_password: string;
}

// A signed-in person's new password, in either realm: the current one proves it is them, and every
// other session and every open one-time link of the account end (one may be a thief's). This one gets a new id (OWASP: a new id
// at every change of privilege). The caller audits it.
export async function changeOwnPassword<A extends AccountBase>(
  d: OwnPasswordDeps<A>,
  realm: IdentityRealm<A>,
  req: FastifyRequest<{ Body: PasswordChange }>,
  accountId: string,
): Promise<A> {
  const account = await d.accounts.find(accountId);
  if (!account) throw new ApiError(realm.unauthorized);
  if (!(await verifyPassword(account.password_hash, req.body.current_password)))
    throw new ApiError('invalid_credentials');
  const problem = passwordProblem(req.body.new_password);
  if (problem) throw new ApiError('invalid_request', { detail: `/new_password: ${problem}` });
  const updated = await d.accounts.update(account._id, { password_hash: await hashPassword(req.body.new_password) });
  if (!updated) throw new ApiError(realm.unauthorized);
  await d.links.endAll(account._id);
  await d.sessions.revokeAll(account._id);
  await establish(req, realm, updated, 'signed_in', req.session.method ?? 'password', d.clock);
  return updated;
}
