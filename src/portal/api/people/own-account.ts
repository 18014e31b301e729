import type { FastifyInstance } from 'fastify';
import type { AccountStore } from '../../../identity/accounts';
import type { PortalAccountDoc } from '../../../identity/identity-store';
import type { OwnAccountAnswers } from '../../../identity/own-account-routes';
import { PORTAL_API } from '../../../identity/portal-realm';
import { ApiError } from '../../../shared/errors';
import { isKnownTimeZone } from '../../../shared/local-time';
import { personZone } from '../../../shared/person-zone';
import { portalUserView } from './portal-users';
import { ownAccountSchemas } from './user-schemas';

// Their partner's zone, the one a person without a zone of their own reads the portal in.
type PartnerZone = (partnerId: string) => Promise<string | null>;

const meOf = async (account: PortalAccountDoc, partnerZone: PartnerZone) => ({
  account: portalUserView(account),
  time_zone: personZone(account.time_zone, await partnerZone(account.partner_id)),
});

// What the portal answers of a partner's person's own account (the routes are identity's, one for
// every realm): who they are and the time zone they read the portal in.
export function portalOwnAccount(partnerZone: PartnerZone): OwnAccountAnswers<PortalAccountDoc> {
  return {
    schemas: ownAccountSchemas,
    me: async (_, account) => {
      // A portal principal is always a person with an account (the portal has no tokens).
      if (!account) throw new ApiError('portal_unauthorized');
      return meOf(account, partnerZone);
    },
  };
}

// The person's own time zone: a display setting of their own (not their partner's), so not an
// audited action; every portal role may (portal.read).
export function portalTimeZoneRoute(d: { accounts: AccountStore<PortalAccountDoc>; partnerZone: PartnerZone }) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.patch<{ Body: { time_zone: string | null } }>(
      `${PORTAL_API}/me`,
      { schema: ownAccountSchemas.timeZone, config: { portalAccess: 'portal.read' } },
      async (req) => {
        const zone = req.body.time_zone;
        if (zone !== null && !isKnownTimeZone(zone))
          throw new ApiError('invalid_request', { detail: `/time_zone "${zone}" is not an IANA time zone` });
        const account = await d.accounts.update(req.principal.id, { time_zone: zone });
        if (!account) throw new ApiError('portal_unauthorized');
        return meOf(account, d.partnerZone);
      },
    );
  };
}
