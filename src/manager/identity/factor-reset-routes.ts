import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../shared/errors';
import { mayGrant } from '../../identity/roles';
import type { AuditLog } from '../audit-log';
import { orNotFound, type IdParams } from '../../shared/http/lookup';
import { accountView } from '../../identity/accounts';
import type { AccountDoc } from '../../identity/identity-store';
import { resetSecondFactors, type FactorResetDeps } from '../../identity/second-factor-reset';
import { factorResetSchema } from './identity-schemas';
import { principalIn } from '../../identity/principal';

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
