import type { Producer } from 'kafkajs';
import type { Collection } from 'mongodb';
import type { Registry } from 'prom-client';
import { DispatcherCommands, EndpointCommands } from '../dispatcher/commands';
import { LeadCommands } from '../processor/commands';
import type { Config } from '../shared/config';
import type { PiiCipher } from '../shared/crypto/pii-cipher';
import type { TopicCodec } from '../shared/kafka/codec';
import type { ReplyWaiter } from '../shared/kafka/reply-waiter';
import type { CallbackReply } from '../shared/schemas';
import type { TopicNames } from '../shared/kafka/topics';
import type { Logger } from '../shared/logger';
import type { Mongo } from '../shared/mongo/client';
import type { PartnerDirectory } from '../shared/partners/partner-directory';
import type { AgentChanges } from '../shared/agent-changes';
import type { Redis } from '../shared/redis/client';
import { minutesCollection, type MinuteDoc } from '../shared/overview/minute-counts';
import { CellStore, cellsCollection } from '../shared/reports/cell-store';
import { LeadKeyStore } from '../shared/store/lead-keys';
import { IntakeKeyStore } from '../shared/store/intake-keys';
import { PartnerKeys } from '../shared/partners/partner-keys';
import { AgentService } from './agent-service';
import { AuditLog } from './audit-log';
import { ContactReveal } from './contact/contact-reveal';
import { revealCounter } from './contact/reveal-metrics';
import { RevealQuota } from './contact/reveal-quota';
import { loadStatuses } from '../shared/status-catalog';
import { DeliveryQueue } from './delivery-queue';
import { LeadList } from './lead-list';
import { LeadLookup } from './lead-view';
import { PartnerService } from './partner-service';
import type { Mailer } from '../shared/mail/mailer';

// What the manager plugin is given (src/app.ts builds it in the process that hosts the manager,
// the ingress role's): the clients it reads and publishes with, and the settings it answers by.
export interface ManagerOptions {
  config: Pick<
    Config,
    'managerTokens' | 'accounts' | 'managerCommandTimeoutMs' | 'serviceName' | 'callbacks' | 'replay'
  > & {
    bodyLimitBytes: number;
    statusCatalogFile: Config['rules']['statusCatalogFile'];
    // The partners' default request quotas and the signature's clock tolerance, shown in the portal.
    intake: Pick<Config['intake'], 'intakePerMinute' | 'statusPerMinute' | 'timestampToleranceS'>;
  };
  mongo: Mongo;
  cipher: PiiCipher;
  partners: PartnerDirectory;
  agentChanges: AgentChanges; // every processor's roster hears of a change to agents through Redis
  redis: Redis;
  kafka: { producer: Producer; codec: TopicCodec; topics: TopicNames };
  // This instance's reader of callbacks.replies: the dispatcher's answers to its commands.
  replies: ReplyWaiter<CallbackReply>;
  logger: Logger;
  metrics: Registry;
  // Null: no SMTP relay configured; one-time links are then shown in the API answers.
  mailer: Mailer | null;
}

// The manager's services, each over the few stores or clients it uses; the routes take the ones they need.
export interface ManagerServices {
  partners: PartnerService;
  agents: AgentService;
  audit: AuditLog;
  leads: LeadLookup;
  leadList: LeadList;
  leadKeys: LeadKeyStore;
  leadCommands: LeadCommands;
  deliveries: DeliveryQueue;
  dispatcher: DispatcherCommands;
  endpoints: EndpointCommands;
  cells: CellStore;
  minutes: Collection<MinuteDoc>;
  contacts: ContactReveal;
}

// Partners as the manager keeps them (also what tests and benches create theirs with).
export function partnerService(o: Pick<ManagerOptions, 'mongo' | 'cipher' | 'partners' | 'redis'>): PartnerService {
  const c = o.mongo.collections;
  return new PartnerService({
    partners: c.partners,
    keys: new PartnerKeys(c.partnerKeys),
    cipher: o.cipher,
    directory: o.partners,
    redis: o.redis,
  });
}

export function managerServices(o: ManagerOptions): ManagerServices {
  const c = o.mongo.collections;
  const audit = new AuditLog(c);
  const leadKeys = new LeadKeyStore(o.mongo.db, new IntakeKeyStore(o.mongo.db));
  return {
    partners: partnerService(o),
    agents: new AgentService(c.agents, c.agentActivity, (id) => o.agentChanges.announce(o.redis, id)),
    audit,
    leads: new LeadLookup(c),
    leadList: new LeadList(c.leads, c.leadList),
    leadKeys,
    leadCommands: new LeadCommands(o.kafka),
    deliveries: new DeliveryQueue(c.deliveries, c.deliveryList),
    dispatcher: new DispatcherCommands({
      deliveries: c.deliveries,
      deliveryList: c.deliveryList,
      ...o.kafka,
      replies: o.replies,
      replyTimeoutMs: o.config.managerCommandTimeoutMs,
    }),
    endpoints: new EndpointCommands({
      health: c.endpointHealth,
      jobs: c.replayJobs,
      ...o.kafka,
      replies: o.replies,
      replyTimeoutMs: o.config.managerCommandTimeoutMs,
      callbackTimeoutMs: o.config.callbacks.timeoutMs,
    }),
    cells: new CellStore(cellsCollection(o.mongo.db)),
    minutes: minutesCollection(o.mongo.db),
    contacts: new ContactReveal({
      leads: c.leads,
      agents: c.agents,
      keys: leadKeys,
      keyring: o.cipher,
      statuses: loadStatuses(o.config.statusCatalogFile),
      quota: new RevealQuota(o.redis, o.config.accounts.contactRevealsPerHour),
      audit,
      reveals: revealCounter(o.metrics),
    }),
  };
}
