import type { FastifyInstance } from 'fastify';
import { leadCommand } from '../../processor/commands';
import { ApiError } from '../../shared/errors';
import type { CursorRequest } from '../pagination';
import type { IdParams } from '../../shared/http/lookup';
import type { WorkspaceDeps } from './workspace-deps';
import { workspaceSchemas } from './workspace-schemas';

// A supervisor's desk: the queues of their team (the agents naming their account) and reassignment
// of a team's lead to another agent of the team. Anything outside the team is unknown (404).
export function teamRoutes({
  queue,
  agents,
  leads,
  commands,
  audit,
  statuses,
  clock,
}: Pick<WorkspaceDeps, 'queue' | 'agents' | 'leads' | 'commands' | 'audit' | 'statuses' | 'clock'>) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.get<{ Querystring: { limit: number } }>(
      '/api/workspace/team',
      { schema: workspaceSchemas.teamQueues, config: { access: 'workspace.team' } },
      async (req) => {
        const now = clock.now();
        const team = await agents.team(req.principal.id);
        const queues = await Promise.all(team.map((a) => queue.page(a._id, { limit: req.query.limit }, now)));
        return { agents: team.map((a, i) => ({ id: a._id, name: a.name, active: a.active, queue: queues[i] })) };
      },
    );

    app.get<IdParams & { Querystring: CursorRequest }>(
      '/api/workspace/team/agents/:id/leads',
      { schema: workspaceSchemas.teamAgentQueue, config: { access: 'workspace.team' } },
      async (req) => {
        const team = await agents.team(req.principal.id);
        if (!team.some((a) => a._id === req.params.id)) throw new ApiError('not_found');
        return queue.page(req.params.id, req.query, clock.now());
      },
    );

    app.post<IdParams & { Body: { agent_id: string } }>(
      '/api/workspace/leads/:id/reassign',
      { schema: workspaceSchemas.reassignLead, config: { access: 'workspace.team' } },
      async (req, reply) => {
        const team = await agents.team(req.principal.id);
        const lead = await leads.findOne(
          { _id: req.params.id },
          { projection: { partner_id: 1, agent_id: 1, status: 1, personal_erased_at: 1 } },
        );
        if (!lead || !team.some((a) => a._id === lead.agent_id)) throw new ApiError('not_found');
        const to = req.body.agent_id;
        if (!team.some((a) => a._id === to && a.active))
          throw new ApiError('invalid_request', { detail: `/agent_id: ${to} is not an active agent of your team` });
        if (lead.agent_id === to) throw new ApiError('conflict', { detail: `the lead is with ${to} already` });
        if (lead.personal_erased_at || statuses.isTerminal(lead.status))
          throw new ApiError('conflict', {
            detail: `the lead has left its agent (${lead.personal_erased_at ? 'erased' : lead.status})`,
          });
        const now = clock.now();
        await commands.publish([
          leadCommand(lead._id, 'reassign', now, { to_agent_id: to, requested_by: req.actor.id }),
        ]);
        await audit.record(req.actor, 'lead.reassign', {
          partnerId: lead.partner_id,
          target: lead._id,
          details: { from_agent_id: lead.agent_id, to_agent_id: to },
        });
        return reply
          .code(202)
          .send({ lead_id: lead._id, from_agent_id: lead.agent_id, to_agent_id: to, requested_at: now });
      },
    );
  };
}
