import { ApiError } from '../shared/errors';
import { orNotFound } from '../shared/http/lookup';
import type { AccountStore } from './accounts';
import type { AccountBase } from './identity-store';
import type { RedisSessionStore } from './session-store';

export interface FactorResetDeps<A extends AccountBase> {
  accounts: AccountStore<A>;
  sessions: RedisSessionStore;
}

// A person's second factors gone, for one who lost them: every session of theirs ends (one may be a
// thief's), and their next sign-in, after the password, sets a new one up. Nobody resets their own:
// with a stolen cookie that would swap the factor for the password alone. The caller audits it.
export async function resetSecondFactors<A extends AccountBase>(
  d: FactorResetDeps<A>,
  account: A,
  by: string,
): Promise<{ updated: A; details: Record<string, unknown> }> {
  if (account._id === by)
    throw new ApiError('conflict', { detail: 'You cannot reset your own second factors; ask another admin' });
  const updated = orNotFound(await d.accounts.clearSecondFactors(account._id));
  await d.sessions.revokeAll(account._id);
  return { updated, details: { reset: true, totp: account.totp !== null, passkeys: account.passkey_ids.length } };
}
