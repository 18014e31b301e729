import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../shared/errors';
import type { AuditLog } from '../audit-log';
import { orNotFound, type IdParams } from '../../shared/http/lookup';
import { serviceTokenSchemas } from './identity-schemas';
import { mayGrant } from '../../identity/roles';
import { serviceTokenView, type NewServiceToken, type ServiceTokens } from './service-tokens';
import { principalIn } from '../../identity/principal';

// Service accounts for machines (the CLI, a CRM's integration): a token shown once, a role, an
// expiry; revoking one ends it at once.
export function serviceAccountRoutes(d: {
  tokens: ServiceTokens;
  audit: AuditLog;
  partnerExists(id: string): Promise<boolean>;
}) {
  return async function register(app: FastifyInstance): Promise<void> {
    const manage = { access: 'tokens.manage' } as const;

    const list = { ...manage, audit: 'service_account.read' } as const;
    app.get('/api/service-accounts', { schema: serviceTokenSchemas.list, config: list }, async () => ({
      items: (await d.tokens.list()).map(serviceTokenView),
    }));

    app.post<{ Body: NewServiceToken }>(
      '/api/service-accounts',
      { schema: serviceTokenSchemas.create, config: { ...manage, audit: 'service_account.create' } },
      async (req, reply) => {
        if (!mayGrant(principalIn(req, 'manager').role, req.body.role))
          throw new ApiError('forbidden', { permission: `tokens.manage (an owner, for a ${req.body.role} token)` });
        for (const id of req.body.partner_ids ?? [])
          if (!(await d.partnerExists(id)))
            throw new ApiError('invalid_request', { detail: `/partner_ids: no partner ${id}` });
        const { token, doc } = await d.tokens.create(
          { ...req.body, partner_ids: req.body.partner_ids ?? [] },
          req.actor.id,
        );
        await d.audit.record(req.actor, 'service_account.create', {
          target: doc.id,
          details: { name: doc.name, role: doc.role, expires_at: doc.expires_at },
        });
        return reply.code(201).send({ ...serviceTokenView(doc), token });
      },
    );

    app.delete<IdParams>(
      '/api/service-accounts/:id',
      { schema: serviceTokenSchemas.revoke, config: { ...manage, audit: 'service_account.revoke' } },
      async (req) => {
        const current = orNotFound(await d.tokens.find(req.params.id));
        if (!mayGrant(principalIn(req, 'manager').role, current.role))
          throw new ApiError('forbidden', { permission: `tokens.manage (an owner, for a ${current.role} token)` });
        const revoked = orNotFound(await d.tokens.revoke(req.params.id));
        await d.audit.record(req.actor, 'service_account.revoke', { target: revoked.id });
        return serviceTokenView(revoked);
      },
    );
  };
}
