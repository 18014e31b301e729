import type { FastifyInstance } from 'fastify';
import type { AuditRecorder } from '../../../shared/audit';
import { resetSecondFactors, type FactorResetDeps } from '../../../identity/second-factor-reset';
import type { PortalAccountDoc } from '../../../identity/identity-store';
import { orNotFound, type IdParams } from '../../../shared/http/lookup';
import { portalUserView } from './portal-users';
import { PORTAL_API } from '../../../identity/portal-realm';
import { userSchemas } from './user-schemas';
import { portalPartner } from '../../../identity/principal';

// A partner admin resets a colleague's lost second factors; another partner's person is unknown (404).
export function portalFactorResetRoute(d: FactorResetDeps<PortalAccountDoc> & { audit: AuditRecorder }) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.post<IdParams>(
      `${PORTAL_API}/users/:id/second-factors/reset`,
      {
        schema: userSchemas.resetFactors,
        config: { portalAccess: 'portal.users', audit: 'portal.second_factor_removed' },
      },
      async (req) => {
        const partnerId = portalPartner(req);
        const found = await d.accounts.find(req.params.id);
        const account = orNotFound(found && found.partner_id === partnerId ? found : null);
        const { updated, details } = await resetSecondFactors(d, account, req.principal.id);
        await d.audit.record(req.actor, 'portal.second_factor_removed', { partnerId, target: account._id, details });
        return portalUserView(updated);
      },
    );
  };
}
