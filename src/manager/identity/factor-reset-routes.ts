import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../shared/errors';
import { mayGrant } from '../../identity/roles';
import type { AuditLog } from '../audit-log';
import { orNotFound, type IdParams } from '../../shared/http/lookup';
import { accountView, type AccountStore } from '../../identity/accounts';
import type { AccountBase, AccountDoc } from '../../identity/identity-store';
import { factorResetSchema } from './identity-schemas';
import type { RedisSessionStore } from '../../identity/session-store';
import { principalIn } from '../../identity/principal';

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

// The manager's reset: owners and admins, over the accounts they may manage (mayGrant).
export function factorResetRoutes(d: FactorResetDeps<AccountDoc> & { audit: AuditLog }) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.post<IdParams>(
      '/api/accounts/:id/second-factors/reset',
      { schema: factorResetSchema, config: { access: 'accounts.manage', audit: 'account.second_factor_removed' } },
      async (req) => {
        const account = orNotFound(await d.accounts.find(req.params.id));
        if (account._id !== req.principal.id && !mayGrant(principalIn(req, 'manager').role, account.role))
          throw new ApiError('forbidden', { permission: 'accounts.manage (an owner, for owners and admins)' });
        const { updated, details } = await resetSecondFactors(d, account, req.principal.id);
        await d.audit.record(req.actor, 'account.second_factor_removed', { target: account._id, details });
        return accountView(updated);
      },
    );
  };
}
