import type { FastifyInstance } from 'fastify';
import { leadCommand } from '../../processor/commands';
import { routeSchemas } from '../api-schemas';
import type { LeadListQuery } from '../lead-list';
import type { CursorRequest } from '../pagination';
import type { ManagerServices } from '../services';
import { orNotFound, type IdParams } from '../../shared/http/lookup';

// Leads as managers and agents see them (by our id or by the partner's external id), and the
// erasure of a lead's personal data.
export function leadRoutes({
  leads,
  leadList: list,
  leadKeys: keys,
  leadCommands: commands,
  agents,
  audit,
}: Pick<ManagerServices, 'leads' | 'leadList' | 'leadKeys' | 'leadCommands' | 'agents' | 'audit'>) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.get<{ Querystring: LeadListQuery & CursorRequest }>(
      '/api/leads',
      { schema: routeSchemas.listLeads, config: { access: 'leads.read' } },
      async (req) => list.page(req.query, req.query, req.principal.partnerScope),
    );

    app.get<IdParams>(
      '/api/leads/:id',
      { schema: routeSchemas.showLead, config: { access: 'leads.read' } },
      async (req) => orNotFound(await leads.find(req.params.id, req.principal.partnerScope)),
    );

    app.get<{ Params: { id: string; externalId: string } }>(
      '/api/affiliates/:id/leads/:externalId',
      { schema: routeSchemas.showPartnerLead, config: { access: 'leads.read', partnerParam: true } },
      async (req) => orNotFound(await leads.byExternalId(req.params.id, req.params.externalId)),
    );

    app.get<IdParams & { Querystring: CursorRequest }>(
      '/api/agents/:id/leads',
      { schema: routeSchemas.listAgentLeads, config: { access: 'agents.read' } },
      async (req) => {
        orNotFound(await agents.find(req.params.id));
        return list.agentPage(req.params.id, req.query);
      },
    );

    // Crypto-shredding: the lead's data key is destroyed before the answer, so from then on no copy
    // of its ciphertext (MongoDB, Kafka) can be read; the erase command lets the lead's owner remove
    // its dedup claims, hashes and ciphertexts like any other change to the lead. Repeatable.
    app.delete<IdParams>(
      '/api/leads/:id/personal-data',
      { schema: routeSchemas.erasePersonalData, config: { access: 'leads.erase', audit: 'lead.erase_personal_data' } },
      async (req, reply) => {
        const lead = orNotFound(await leads.doc(req.params.id));
        const now = new Date();
        await keys.destroy([lead]);
        await commands.publish([leadCommand(lead._id, 'erase', now, { requested_by: req.actor.id })]);
        await audit.record(req.actor, 'lead.erase_personal_data', { partnerId: lead.partner_id, target: lead._id });
        return reply.code(202).send({ id: lead._id, personal_data: 'erasing', key_destroyed_at: now });
      },
    );
  };
}
