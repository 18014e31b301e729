import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../shared/errors';
import type { ReplayJobDoc } from '../../shared/mongo/documents';
import type { DeliveryKind } from '../../shared/delivery-kind';
import { routeSchemas } from '../api-schemas';
import type { ManagerServices } from '../services';
import { inScope } from '../identity/principal';
import { orNotFound, type IdParams } from './lookup';

interface KindQuery {
  Querystring: { kind: DeliveryKind };
}

interface ReplayBody {
  from: string;
  to: string;
  events?: string[];
}

// A partner's callback endpoint (issue 13) and tracker (issue 32): their health, resuming it after an auto-pause, and
// replaying its callbacks over a time range. The dispatcher does the work (commands.ts); a refused
// request changes nothing and is audited (refusal-audit.ts).
export function endpointRoutes({ endpoints, partners, audit, maxRangeS }: Pick<ManagerServices, 'endpoints' | 'partners' | 'audit'> & { maxRangeS: number }) {

  return async function register(app: FastifyInstance): Promise<void> {
    app.get<IdParams & KindQuery>('/api/affiliates/:id/endpoint-health', { schema: routeSchemas.endpointHealth, config: { access: 'endpoints.read', partnerParam: true } }, async (req) => {
      orNotFound(await partners.find(req.params.id));
      return endpoints.health(req.params.id, req.query.kind);
    });

    app.post<IdParams & KindQuery>('/api/affiliates/:id/endpoint/resume', { schema: routeSchemas.resumeEndpoint, config: { access: 'endpoints.resume', partnerParam: true, audit: 'endpoint.resume' } }, async (req, reply) => {
      orNotFound(await partners.find(req.params.id));
      const result = await endpoints.resume(req.params.id, req.actor.id, req.query.kind);
      if (result.outcome === 'not_paused') throw new ApiError('conflict', { detail: 'The endpoint is not paused' });
      await audit.record(req.actor, 'endpoint.resume', { partnerId: req.params.id, details: { requested_at: result.at, kind: req.query.kind } });
      return reply.code(202).send({ affiliate_id: req.params.id, state: 'resuming', requested_at: result.at });
    });

    app.post<IdParams & { Body: ReplayBody }>('/api/affiliates/:id/replay', { schema: routeSchemas.replay, config: { access: 'replays', partnerParam: true, audit: 'partner.replay' } }, async (req, reply) => {
      orNotFound(await partners.find(req.params.id));
      const from = new Date(req.body.from);
      const to = new Date(req.body.to);
      const events = req.body.events ?? [];
      const problem = rangeProblem(from, to, maxRangeS);
      if (problem) throw new ApiError('invalid_request', { detail: problem });
      const result = await endpoints.replay({ partnerId: req.params.id, from, to, events, by: req.actor.id });
      const jobId = result.outcome === 'created' ? result.job._id : result.jobId;
      await audit.record(req.actor, 'partner.replay', { partnerId: req.params.id, target: jobId, details: { from, to, events } });
      if (result.outcome === 'pending') throw new ApiError('command_pending', { command: `replay (job ${jobId})` }, { 'retry-after': '5' });
      return reply.code(202).send(replayJobView(result.job));
    });

    app.get<IdParams>('/api/replays/:id', { schema: routeSchemas.showReplay, config: { access: 'replays' } }, async (req) => {
      const job = orNotFound(await endpoints.replayJob(req.params.id));
      // Another partner's job is unknown to an affiliate manager.
      return replayJobView(orNotFound(inScope(req.principal, job.partner_id) ? job : null));
    });
  };
}

// Why a replay range is refused, or null.
export function rangeProblem(from: Date, to: Date, maxRangeS: number): string | null {
  if (from.getTime() >= to.getTime()) return '/from must be before /to';
  if (to.getTime() - from.getTime() > maxRangeS * 1000) return `the range is longer than REPLAY_MAX_RANGE_S (${maxRangeS} s)`;
  return null;
}

export function replayJobView(job: ReplayJobDoc) {
  const { _id, partner_id, partition: _p, ...rest } = job;
  return { id: _id, affiliate_id: partner_id, ...rest };
}
