import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../../shared/errors';
import type { PartnerSettings } from '../../../shared/schemas';
import { settingsProblem } from '../../../manager/partner-settings';
import { orNotFound } from '../../../shared/http/lookup';
import { integrationSchemas, type PORTAL_SECRETS } from './integration-schemas';
import { baseUrlOf, callbackAddressProblem, integrationView } from './integration-view';
import type { PortalDeps } from './portal-deps';
import { portalPartner } from '../../../identity/principal';

type Deps = Pick<PortalDeps, 'partners' | 'audit' | 'config' | 'statuses' | 'snippets' | 'quotaUse'>;
type Patch = Pick<PartnerSettings, 'callback_url' | 'callback_events'>;

// The partner's Integration page: what it needs to integrate, key rotation, and its callback URL
// and events, changed directly and audited (docs/decisions.md says why not as a request).
export function integrationRoutes(d: Deps) {
  const { partners, audit, config } = d;

  return async function register(app: FastifyInstance): Promise<void> {
    app.get(
      '/portal/api/integration',
      { schema: integrationSchemas.show, config: { portalAccess: 'portal.read' } },
      async (req) => {
        const partnerId = portalPartner(req);
        const [partner, usage] = await Promise.all([partners.find(partnerId), d.quotaUse(partnerId)]);
        return integrationView(orNotFound(partner), usage, {
          baseUrl: baseUrlOf(req),
          quotas: config.intake,
          toleranceS: config.intake.timestampToleranceS,
          snippets: d.snippets,
        });
      },
    );

    app.post<{ Body: { which: (typeof PORTAL_SECRETS)[number][]; grace_seconds: number } }>(
      '/portal/api/integration/rotate',
      { schema: integrationSchemas.rotate, config: { portalAccess: 'portal.act', audit: 'partner.rotate_key' } },
      async (req, reply) => {
        const { which, grace_seconds: graceSeconds } = req.body;
        const rotated = orNotFound(await partners.rotateSecrets(portalPartner(req), which, graceSeconds));
        // The manager sees who rotated what in the partner's audit log; never the secrets.
        await audit.record(req.actor, 'partner.rotate_key', {
          partnerId: portalPartner(req),
          details: { rotated: which, grace_seconds: graceSeconds },
        });
        const graceUntil = graceSeconds > 0 ? new Date(rotated.key_rotated_at.getTime() + graceSeconds * 1000) : null;
        return reply.header('cache-control', 'no-store').send({ ...rotated, grace_until: graceUntil });
      },
    );

    app.patch<{ Body: Patch }>(
      '/portal/api/integration',
      { schema: integrationSchemas.update, config: { portalAccess: 'portal.act', audit: 'partner.update' } },
      async (req) => {
        const partnerId = portalPartner(req);
        const patch = req.body;
        const problem =
          settingsProblem(patch, d.statuses, false) ??
          (typeof patch.callback_url === 'string'
            ? callbackAddressProblem(patch.callback_url, config.callbacks)
            : null);
        if (problem) throw new ApiError('invalid_request', { detail: problem });
        const before = orNotFound(await partners.find(partnerId));
        const after = orNotFound(await partners.update(partnerId, patch));
        await audit.record(req.actor, 'partner.update', {
          partnerId,
          details: {
            fields: Object.keys(patch),
            ...('callback_url' in patch && {
              callback_host: { from: hostOf(before.callback_url), to: hostOf(after.callback_url) },
            }),
          },
        });
        return {
          callback_url: after.callback_url,
          callback_events: after.callback_events ?? [],
          updated_at: after.updated_at,
        };
      },
    );
  };
}

// The audit names the host a callback URL changed from and to (its path may carry a token of theirs).
function hostOf(url: string | null): string | null {
  return url && URL.canParse(url) ? new URL(url).host : null;
}
