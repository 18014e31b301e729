import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { alertPreferenceRoutes, alertWebhookRoutes } from '../../alerts/commands';
import type { Clock } from '../../shared/clock';
import type { PortalAccountDoc } from '../../identity/identity-store';
import { realmIdentity, registerSignIn, type RealmIdentityOptions } from '../../identity/realm-identity';
import { registerSessions } from '../../identity/register-sessions';
import { apiContext } from '../../manager/api-context';
import { auditRefusals } from '../../manager/refusal-audit';
import type { ManagerOptions, ManagerServices } from '../../manager/services';
import { portalEmailRoute } from './people/email-route';
import { portalInvitationRoute } from './people/invitation-route';
import { portalAuthenticate } from '../../identity/portal-authenticate';
import { ownPartner } from '../../identity/principal';
import { PORTAL_API, PORTAL_COOKIE, portalRealm } from '../../identity/portal-realm';
import { portalUserRoutes } from './people/user-routes';
import { ownAccountRoutes } from '../../identity/own-account-routes';
import { portalOwnAccount, portalTimeZoneRoute } from './people/own-account';
import { portalFactorResetRoute } from './people/user-factor-route';
import { registerPortal } from './portal-static';
import { portalDataRoutes, registerPortalOpenApi } from './routes';
import { personZone } from '../../shared/person-zone';

// The partner portal's API (/portal/api) and pages: one fastify context of its own beside the manager's, with
// its own session cookie and Redis sessions, its own authentication (a portal session only) and its
// routes; and the manager's routes into it: the invitation of a partner's first admin, freeing an email.
export function partnerPortal(
  m: ManagerOptions,
  services: ManagerServices,
  clock: Clock,
): { plugin: FastifyPluginAsync; invitations: FastifyPluginAsync; emails: FastifyPluginAsync } {
  const o: RealmIdentityOptions = {
    config: m.config,
    db: m.mongo.db,
    redis: m.redis,
    cipher: m.cipher,
    audit: services.audit,
    clock,
    mailer: m.mailer,
  };
  const partnerOf = (id: string) => services.partners.find(id);
  const id = realmIdentity<PortalAccountDoc>(portalRealm(partnerOf), o);
  const partnerZone = async (partnerId: string) => (await m.partners.byId(partnerId))?.time_zone ?? null;
  // The signed-in person's zone: one read of their account by _id, their partner's from the directory.
  const zoneOf = async (accountId: string, partnerId: string) =>
    personZone((await id.accounts.find(accountId))?.time_zone, await partnerZone(partnerId));
  const people = {
    accounts: id.accounts,
    links: id.links,
    audit: o.audit,
    consoleUrl: o.config.accounts.consoleUrl,
    mailer: m.mailer,
  };

  const plugin = async (app: FastifyInstance): Promise<void> => {
    apiContext(app, { name: 'portal', bodyLimitBytes: m.config.bodyLimitBytes });
    // Public: the pages hold no data; they sign in against the API below.
    await registerPortal(app, m.logger);
    await registerSessions(app, {
      secret: o.config.accounts.sessionSecret,
      name: PORTAL_COOKIE,
      path: `${PORTAL_API}/`,
      store: id.sessions,
    });
    await registerPortalOpenApi(app, o.config.serviceName);
    portalAuthenticate(app, id.realm, {
      timeouts: id.timeouts,
      clock: o.clock,
      // Every request: the directory's cache, which a manager's change of the partner evicts at once.
      partnerActive: async (partnerId) => (await m.partners.byId(partnerId))?.disabled === false,
    });
    // A portal action refused is audited as the manager's are: the person, about their partner.
    auditRefusals(app, services.audit, (req) =>
      req.principal ? { actor: req.actor, partnerId: ownPartner(req.principal) } : null,
    );
    await registerSignIn(app, id, o);
    await app.register(portalUserRoutes({ ...people, sessions: id.sessions }));
    await app.register(ownAccountRoutes({ ...id, audit: o.audit, clock: o.clock }, portalOwnAccount(partnerZone)));
    await app.register(portalTimeZoneRoute({ accounts: id.accounts, partnerZone }));
    await app.register(portalFactorResetRoute({ accounts: id.accounts, sessions: id.sessions, audit: o.audit }));
    await app.register(portalDataRoutes(services, m, zoneOf));
    await app.register(alertPreferenceRoutes('portal', { db: m.mongo.db, clock }));
    await app.register(
      alertWebhookRoutes({
        db: m.mongo.db,
        audit: m.mongo.collections,
        clock,
        allowHttp: m.config.callbacks.allowHttp,
      }),
    );
  };
  const invitations = portalInvitationRoute({
    ...people,
    partnerExists: async (partnerId) => (await services.partners.find(partnerId)) !== null,
  });
  const emails = portalEmailRoute({ accounts: id.accounts, sessions: id.sessions, audit: o.audit });
  return { plugin, invitations, emails };
}
