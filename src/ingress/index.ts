import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Config, CryptoConfig } from '../shared/config';
import type { PiiCipher } from '../shared/crypto/pii-cipher';
import type { RoleClients, RoleHandle } from '../shared/role';
import { ReplyWaiter } from '../shared/kafka/reply-waiter';
import type { IntakeReply } from '../shared/schemas';
import { IntakeDecisionStore } from '../shared/store/intake-decisions';
import { LeadRefStore } from '../shared/store/lead-refs';
import { LeadStore } from '../shared/store/leads';
import { Admissions } from './admission';
import { IdempotencyStore } from './idempotency';
import { IntakeKeyStore } from '../shared/store/intake-keys';
import { DataKeyStock } from './data-key-stock';
import { IntakeFlow } from './intake-flow';
import { IngressMetrics } from './metrics';
import { LIST_SCAN, partnerReads } from '../manager/commands';
import { intakeRoutes } from './intake-routes';
import { PARTNER_API_PREFIX, PARTNER_REPORTS_PREFIX, partnerApi } from './partner-api';
import { reportRoutes } from './report-routes';
import { statusRoutes } from './status-routes';
import { PARTNER_OPENAPI_PATH, partnerOpenApiDocument } from './partner-openapi';
import { AuthFailureLimiter } from './rate-limit';
import { RefusalReports } from './refusal-reports';

// For the process's request log, which the partner API writes itself (app.ts).
export { PARTNER_API_PREFIX } from './partner-api';

// What the ingress is given (src/role-deps.ts builds it): the clients it uses and its settings.
export interface IngressDeps extends RoleClients {
  config: Pick<Config, 'serviceName' | 'intake'> & { crypto: Pick<CryptoConfig, 'hashKey'> };
  cipher: PiiCipher;
}

// The ingress role: the partner API under /api/v1/inbound (spec 4.1, 4.2) and its reporting calls
// under /api/v1 (leads and reports). Each instance has an
// id of its own, which names the reply consumer and is the reply_to of its intake commands.
export async function startIngress(d: IngressDeps): Promise<RoleHandle> {
  const instanceId = `ingress-${randomBytes(6).toString('hex')}`;
  const replies = new ReplyWaiter<IntakeReply>(d.consumers, 'intakeReplies', instanceId);
  await replies.start();

  const { intake } = d.config;
  const refusals = new RefusalReports({
    producer: d.producer,
    codec: d.codec,
    topics: d.topics,
    logger: d.logger,
    metrics: d.metrics,
  });
  const dataKeys = new DataKeyStock(d.cipher, new IntakeKeyStore(d.mongo.db), d.logger);
  const apiDeps = {
    partners: d.partners,
    intake,
    hashKey: d.config.crypto.hashKey,
    logger: d.logger,
    flow: new IntakeFlow(
      {
        hashKey: d.config.crypto.hashKey,
        codec: d.codec,
        producer: d.producer,
        topics: d.topics,
        replyTimeoutMs: intake.replyTimeoutMs,
        dataKeys,
        logger: d.logger,
      },
      new IdempotencyStore(d.redis),
      replies,
      new IntakeDecisionStore(d.mongo.db, intake.idempotencyTtlS),
      refusals,
    ),
    refs: new LeadRefStore(d.mongo.collections.leadRefs),
    leads: new LeadStore(d.mongo.collections.leads),
    admissions: new Admissions(d.redis, instanceId, intake),
    authFailures: new AuthFailureLimiter(d.redis, instanceId, intake.authFailuresPerMinute),
    metrics: new IngressMetrics(d.metrics),
  };
  const api = partnerApi(apiDeps, [intakeRoutes(apiDeps), statusRoutes(apiDeps)]);
  const reports = partnerApi(apiDeps, [
    reportRoutes({
      reads: partnerReads(d.mongo, d.cipher, { ...LIST_SCAN, ms: intake.reportScanMs }),
      readTimeoutMs: intake.replyTimeoutMs,
    }),
  ]);
  const openApi = partnerOpenApiDocument({ serviceName: d.config.serviceName, ...intake });
  d.logger.info({ instance_id: instanceId }, 'ingress started');

  return {
    name: 'ingress',
    routes: async (app: FastifyInstance) => {
      // Outside the partner plugin: the document needs no credentials, like the manager's.
      app.get(PARTNER_OPENAPI_PATH, async () => openApi);
      await app.register(api, { prefix: PARTNER_API_PREFIX });
      await app.register(reports, { prefix: PARTNER_REPORTS_PREFIX });
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
      await dataKeys.stop();
    },
  };
}
