import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../shared/errors';
import type { Principal } from '../../identity/principal';
import type { CursorRequest } from '../pagination';
import { orNotFound, type IdParams } from '../../shared/http/lookup';
import type { WorkspaceDeps } from './workspace-deps';
import { callbackProblem, outcomeAction, outcomeRefusal, type Outcome } from './outcomes';
import { workspaceSchemas } from './workspace-schemas';

// The agent record an agent's account works as: without one there is no queue to show.
export function agentOf(p: Pick<Principal, 'agentId'>): string {
  if (p.agentId === null)
    throw new ApiError('conflict', {
      detail: 'This account works as no agent record; an owner or an admin links it (agent_id)',
    });
  return p.agentId;
}

// An agent's desk: their own queue, a lead card, and one-click outcomes published as CRM agent actions.
export function deskRoutes({
  queue,
  cards,
  actions,
  leads,
  statuses,
  clock,
}: Pick<WorkspaceDeps, 'queue' | 'cards' | 'actions' | 'leads' | 'statuses' | 'clock'>) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.get<{ Querystring: CursorRequest }>(
      '/api/workspace/leads',
      { schema: workspaceSchemas.myQueue, config: { access: 'workspace.own' } },
      async (req) => queue.page(agentOf(req.principal), req.query, clock.now()),
    );

    app.get<IdParams>(
      '/api/workspace/leads/:id',
      { schema: workspaceSchemas.leadCard, config: { access: 'workspace.own' } },
      async (req) => orNotFound(await cards.of(req.params.id, agentOf(req.principal))),
    );

    app.post<IdParams & { Body: { outcome: Outcome; callback_at?: string } }>(
      '/api/workspace/leads/:id/outcome',
      { schema: workspaceSchemas.recordOutcome, config: { access: 'workspace.own' } },
      async (req, reply) => {
        const agentId = agentOf(req.principal);
        const now = clock.now();
        const lead = await leads.findOne(
          { _id: req.params.id },
          { projection: { agent_id: 1, status: 1, personal_erased_at: 1 } },
        );
        if (!lead || lead.agent_id !== agentId) throw new ApiError('not_found');
        const { outcome, callback_at: callbackAt } = req.body;
        const problem = callbackProblem(outcome, callbackAt, now);
        if (problem) throw new ApiError('invalid_request', { detail: problem });
        const refused = lead.personal_erased_at
          ? "the lead's personal data is erased: nobody can call it"
          : outcomeRefusal(statuses, lead.status, outcome);
        if (refused) throw new ApiError('conflict', { detail: refused });
        const action = outcomeAction(req.params.id, agentId, outcome, callbackAt, now);
        await actions.publish(action);
        return reply.code(202).send({
          action_id: action.action_id,
          lead_id: action.lead_id,
          outcome,
          status: action.status,
          callback_at: action.callback_at ?? null,
        });
      },
    );
  };
}
