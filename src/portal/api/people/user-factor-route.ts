import type { FastifyInstance } from 'fastify';
import type { AuditLog } from '../../../manager/audit-log';
import { resetSecondFactors, type FactorResetDeps } from '../../../manager/identity/factor-reset-routes';
import type { PortalAccountDoc } from '../../../identity/identity-store';
import { orNotFound, type IdParams } from '../../../shared/http/lookup';
import { portalUserView } from './portal-users';
import { PORTAL_API } from '../../../identity/portal-realm';
import { userSchemas } from './user-schemas';

// A partner admin resets a colleague's lost second factors; another partner's person is unknown (404).
export function portalFactorResetRoute(d: FactorResetDeps<PortalAccountDoc> & { audit: AuditLog }) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.post<IdParams>(
      `${PORTAL_API}/users/:id/second-factors/reset`,
      {
        schema: userSchemas.resetFactors,
        config: { portalAccess: 'portal.users', audit: 'portal.second_factor_removed' },
      },
      async (req) => {
        const { actor, partnerId, accountId } = req.portal;
        const found = await d.accounts.find(req.params.id);
        const account = orNotFound(found && found.partner_id === partnerId ? found : null);
        const { updated, details } = await resetSecondFactors(d, account, accountId);
        await d.audit.record(actor, 'portal.second_factor_removed', { partnerId, target: account._id, details });
        return portalUserView(updated);
      },
    );
  };
}
