import type { DispatcherDeps } from './dispatcher';
import type { IngressDeps } from './ingress';
import type { ManagerOptions } from './manager';
import type { ProcessorDeps } from './processor';
import type { ReplyWaiter } from './shared/kafka/reply-waiter';
import type { Clock } from './shared/clock';
import { Mailer } from './shared/mail/mailer';
import type { MailOutbox } from './shared/mail/outbox';
import { withFetchBytes } from './shared/kafka/consumer-settings';
import type { RoleClients } from './shared/role';
import type { Runtime } from './shared/runtime';
import type { CallbackReply } from './shared/schemas';

// What each role is given of the runtime: the one place that knows both. A role gets the clients it
// uses and the settings it reads; sections holding a secret (the keyring, a store's URL) are cut to
// the part it reads.

// What every role uses (RoleClients), picked from the runtime.
const shared = (rt: Runtime): RoleClients => {
  const { consumers, producer, codec, topics, mongo, redis, partners, metrics, logger } = rt;
  return { consumers, producer, codec, topics, mongo, redis, partners, metrics, logger };
};

export function ingressDeps(rt: Runtime): IngressDeps {
  const { serviceName, intake, crypto } = rt.config;
  return { ...shared(rt), cipher: rt.cipher, config: { serviceName, intake, crypto: { hashKey: crypto.hashKey } } };
}

export function processorDeps(rt: Runtime, clock: Clock): ProcessorDeps {
  const { rules, intake, crypto } = rt.config;
  const config = { rules, intake, crypto: { hashKey: crypto.hashKey } };
  const { agentChanges, subscriber } = rt;
  return { ...shared(rt), cipher: rt.cipher, agentChanges, subscriber, config, clock };
}

// Its consumers fetch within DISPATCHER_FETCH_MAX_BYTES* (kafkajs's own sizes unless set lower on a small machine).
export function dispatcherDeps(rt: Runtime): DispatcherDeps {
  const { serviceName, callbacks, endpoints, replay, redis, dispatcherFetch } = rt.config;
  const config = { serviceName, callbacks, endpoints, replay, redis: { prefix: redis.prefix } };
  const consumers = { ...rt.consumers, settings: withFetchBytes(rt.consumers.settings, dispatcherFetch) };
  return { ...shared(rt), consumers, subscriber: rt.subscriber, config };
}

// The manager's, with the reader of the dispatcher's replies to its commands.
// `outbox`: the one the process's mail sender serves (null where mail is off), so a message queued
// here wakes it.
export function managerOptions(
  rt: Runtime,
  replies: ReplyWaiter<CallbackReply>,
  outbox: MailOutbox | null,
): ManagerOptions {
  const { config } = rt;
  return {
    config: {
      managerTokens: config.managerTokens,
      accounts: config.accounts,
      managerCommandTimeoutMs: config.managerCommandTimeoutMs,
      serviceName: config.serviceName,
      callbacks: config.callbacks,
      replay: config.replay,
      bodyLimitBytes: config.intake.bodyLimitBytes,
      statusCatalogFile: config.rules.statusCatalogFile,
      intake: config.intake,
    },
    mongo: rt.mongo,
    cipher: rt.cipher,
    partners: rt.partners,
    agentChanges: rt.agentChanges,
    redis: rt.redis,
    kafka: { producer: rt.producer, codec: rt.codec, topics: rt.topics },
    replies,
    logger: rt.logger,
    metrics: rt.metrics,
    mailer: config.mail && outbox ? new Mailer(outbox, config.serviceName, config.mail.pagesUrl) : null,
  };
}
