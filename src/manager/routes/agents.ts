import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../shared/errors';
import type { Runtime } from '../../shared/runtime';
import type { AgentSettings } from '../../shared/schemas';
import { createAgent, findAgent, listAgents, updateAgent } from '../agent-service';
import { routeSchemas } from '../api-schemas';
import { recordAudit } from '../audit-log';
import type { PageRequest } from '../pagination';
import { timeZoneProblem } from '../time-zone-setting';
import { orNotFound, type IdParams } from './lookup';

// Settings are checked by schemas/agent.json, and the time zone by the runtime.
function checkSettings(settings: AgentSettings): void {
  const problem = timeZoneProblem(settings);
  if (problem) throw new ApiError('invalid_request', { detail: problem });
}

// Agents leads are distributed to.
export function agentRoutes(rt: Runtime) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.post<{ Body: AgentSettings & { name: string } }>('/api/agents', { schema: routeSchemas.createAgent }, async (req, reply) => {
      checkSettings(req.body);
      const agent = await createAgent(rt, req.body);
      await recordAudit(rt, req.managerActor, 'agent.create', { target: agent.id, details: { fields: Object.keys(req.body) } });
      return reply.code(201).send(agent);
    });

    app.get<{ Querystring: PageRequest & { active?: boolean } }>('/api/agents', { schema: routeSchemas.listAgents }, async (req) =>
      listAgents(rt, { active: req.query.active }, req.query));

    app.get<IdParams>('/api/agents/:id', { schema: routeSchemas.showAgent }, async (req) => orNotFound(await findAgent(rt, req.params.id)));

    app.patch<IdParams & { Body: AgentSettings }>('/api/agents/:id', { schema: routeSchemas.updateAgent }, async (req) => {
      checkSettings(req.body);
      const agent = orNotFound(await updateAgent(rt, req.params.id, req.body));
      await recordAudit(rt, req.managerActor, 'agent.update', { target: agent.id, details: { fields: Object.keys(req.body) } });
      return agent;
    });
  };
}
