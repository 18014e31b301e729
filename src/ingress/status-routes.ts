import type { FastifyInstance } from 'fastify';
import { ApiError } from '../shared/errors';
import { boundedRead } from '../shared/mongo/bounded-read';
import type { PartnerDoc } from '../shared/mongo/documents';
import type { LeadStatusFields } from '../shared/store/leads';
import { answer, authenticated, type PartnerApiDeps } from './partner-context';

export interface LeadStatusView {
  id: string;
  external_id: string;
  status: string;
  our_status: string;
  is_depositor: boolean;
  created_at: string;
  updated_at: string;
}

// What a partner may see of its lead: status in its own codes and ours; no PII, no money, no agent.
export function leadStatusView(
  lead: Omit<LeadStatusFields, 'partner_id'>,
  partner: Pick<PartnerDoc, 'status_mapping'>,
): LeadStatusView {
  return {
    id: lead._id,
    external_id: lead.external_id,
    status: partner.status_mapping?.[lead.status] ?? lead.status,
    our_status: lead.status,
    is_depositor: lead.is_depositor,
    created_at: lead.created_at.toISOString(),
    updated_at: lead.updated_at.toISOString(),
  };
}

// GET /leads/{externalId}/status (spec 4.2): the calling partner's lead only; another partner's
// lead is as unknown as one that does not exist. Two reads by _id: the partner's reference, then
// the lead's status fields, so the cost does not grow with the leads stored or their history. Both
// within the intake reply timeout: a MongoDB that does not answer gets the partner a 503.
export function statusRoutes(deps: PartnerApiDeps) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.get<{ Params: { externalId: string } }>(
      '/leads/:externalId/status',
      { config: { endpoint: 'status' } },
      async (req, reply) => {
        const partner = authenticated(req);
        const lead = await boundedRead(deps.intake.replyTimeoutMs, 'status lookup', async (signal) => {
          const leadId = await deps.refs.leadIdOf(partner._id, req.params.externalId, signal);
          return leadId === null ? null : deps.leads.statusOf(leadId, signal);
        });
        if (!lead || lead.partner_id !== partner._id) throw new ApiError('not_found');
        return answer(req, reply, 200, leadStatusView(lead, partner));
      },
    );
  };
}
