import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { RoleHandle } from '../shared/role';
import type { Runtime } from '../shared/runtime';
import { ReplyWaiter } from '../shared/kafka/reply-waiter';
import type { IntakeReply } from '../shared/schemas';
import { IntakeDecisionStore } from '../shared/store/intake-decisions';
import { LeadRefStore } from '../shared/store/lead-refs';
import { LeadStore } from '../shared/store/leads';
import { Admissions } from './admission';
import { IdempotencyStore } from './idempotency';
import { IntakeKeyStore } from '../shared/store/intake-keys';
import { IntakeFlow } from './intake-flow';
import { IngressMetrics } from './metrics';
import { PARTNER_API_PREFIX, partnerApi } from './partner-api';
import { PARTNER_OPENAPI_PATH, partnerOpenApiDocument } from './partner-openapi';
import { AuthFailureLimiter } from './rate-limit';
import { RefusalReports } from './refusal-reports';

// The ingress role: the partner API under /api/v1/inbound (spec 4.1, 4.2). Each instance has an
// id of its own, which names the reply consumer and is the reply_to of its intake commands.
export async function startIngress(rt: Runtime): Promise<RoleHandle> {
  const instanceId = `ingress-${randomBytes(6).toString('hex')}`;
  const replies = new ReplyWaiter<IntakeReply>(rt.consumers, 'intakeReplies', instanceId);
  await replies.start();

  const { intake } = rt.config;
  const refusals = new RefusalReports({
    producer: rt.producer,
    codec: rt.codec,
    topics: rt.topics,
    logger: rt.logger,
    metrics: rt.metrics,
  });
  const api = partnerApi({
    partners: rt.partners,
    intake,
    hashKey: rt.config.crypto.hashKey,
    logger: rt.logger,
    flow: new IntakeFlow(
      {
        hashKey: rt.config.crypto.hashKey,
        cipher: rt.cipher,
        codec: rt.codec,
        producer: rt.producer,
        topics: rt.topics,
        replyTimeoutMs: intake.replyTimeoutMs,
        intakeKeys: new IntakeKeyStore(rt.mongo.db),
        logger: rt.logger,
      },
      new IdempotencyStore(rt.redis),
      replies,
      new IntakeDecisionStore(rt.mongo.db, intake.idempotencyTtlS),
      refusals,
    ),
    refs: new LeadRefStore(rt.mongo.collections.leadRefs),
    leads: new LeadStore(rt.mongo.collections.leads),
    admissions: new Admissions(rt.redis, instanceId, intake),
    authFailures: new AuthFailureLimiter(rt.redis, instanceId, intake.authFailuresPerMinute),
    metrics: new IngressMetrics(rt.metrics),
  });
  const openApi = partnerOpenApiDocument({ serviceName: rt.config.serviceName, ...intake });
  rt.logger.info({ instance_id: instanceId }, 'ingress started');

  return {
    name: 'ingress',
    routes: async (app: FastifyInstance) => {
      // Outside the partner plugin: the document needs no credentials, like the manager's.
      app.get(PARTNER_OPENAPI_PATH, async () => openApi);
      await app.register(api, { prefix: PARTNER_API_PREFIX });
    },
    readiness: [
      {
        name: 'intake-replies',
        check: async () => {
          if (!replies.ready) throw new Error('the intake reply consumer is not fetching');
        },
      },
    ],
    async stop() {
      await replies.stop();
      await refusals.stop();
    },
  };
}
