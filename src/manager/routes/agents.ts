import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../shared/errors';
import type { AgentSettings } from '../../shared/schemas';
import { routeSchemas } from '../api-schemas';
import type { PageRequest } from '../pagination';
import type { ManagerServices } from '../services';
import { timeZoneProblem } from '../time-zone-setting';
import { orNotFound, type IdParams } from '../../shared/http/lookup';

// Settings are checked by schemas/agent.json, and the time zone by the runtime.
function checkSettings(settings: AgentSettings): void {
  const problem = timeZoneProblem(settings);
  if (problem) throw new ApiError('invalid_request', { detail: problem });
}

// Agents leads are distributed to.
export function agentRoutes({ agents, audit }: Pick<ManagerServices, 'agents' | 'audit'>) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.post<{ Body: AgentSettings & { name: string } }>(
      '/api/agents',
      { schema: routeSchemas.createAgent, config: { access: 'agents.write' } },
      async (req, reply) => {
        checkSettings(req.body);
        const agent = await agents.create(req.body);
        await audit.record(req.actor, 'agent.create', { target: agent.id, details: { fields: Object.keys(req.body) } });
        return reply.code(201).send(agent);
      },
    );

    app.get<{ Querystring: PageRequest & { active?: boolean } }>(
      '/api/agents',
      { schema: routeSchemas.listAgents, config: { access: 'agents.read' } },
      async (req) => agents.list({ active: req.query.active }, req.query),
    );

    app.get<IdParams>(
      '/api/agents/:id',
      { schema: routeSchemas.showAgent, config: { access: 'agents.read' } },
      async (req) => orNotFound(await agents.find(req.params.id)),
    );

    app.patch<IdParams & { Body: AgentSettings }>(
      '/api/agents/:id',
      { schema: routeSchemas.updateAgent, config: { access: 'agents.write' } },
      async (req) => {
        checkSettings(req.body);
        const agent = orNotFound(await agents.update(req.params.id, req.body));
        await audit.record(req.actor, 'agent.update', { target: agent.id, details: { fields: Object.keys(req.body) } });
        return agent;
      },
    );
  };
}
