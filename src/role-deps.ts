import type { DispatcherDeps } from './dispatcher';
import type { IngressDeps } from './ingress';
import type { ManagerOptions } from './manager';
import type { ProcessorDeps } from './processor';
import type { ReplyWaiter } from './shared/kafka/reply-waiter';
import type { Runtime } from './shared/runtime';
import type { CallbackReply } from './shared/schemas';

// What each role is given of the runtime: the one place that knows both. A role gets the clients it
// uses and the settings it reads; sections holding a secret (the keyring, a store's URL) are cut to
// the part it reads.

// The Kafka clients every role has: its consumers' and the one producer with its codec and topics.
const kafkaOf = ({ consumers, producer, codec, topics }: Runtime) => ({ consumers, producer, codec, topics });

export function ingressDeps(rt: Runtime): IngressDeps {
  const { config } = rt;
  return {
    config: { serviceName: config.serviceName, intake: config.intake, crypto: { hashKey: config.crypto.hashKey } },
    ...kafkaOf(rt),
    mongo: rt.mongo,
    redis: rt.redis,
    cipher: rt.cipher,
    partners: rt.partners,
    metrics: rt.metrics,
    logger: rt.logger,
  };
}

export function processorDeps(rt: Runtime): ProcessorDeps {
  const { config } = rt;
  return {
    config: { rules: config.rules, intake: config.intake, crypto: { hashKey: config.crypto.hashKey } },
    ...kafkaOf(rt),
    mongo: rt.mongo,
    redis: rt.redis,
    locks: rt.locks,
    cipher: rt.cipher,
    partners: rt.partners,
    metrics: rt.metrics,
    logger: rt.logger,
  };
}

export function dispatcherDeps(rt: Runtime): DispatcherDeps {
  const { config } = rt;
  return {
    config: {
      serviceName: config.serviceName,
      callbacks: config.callbacks,
      endpoints: config.endpoints,
      replay: config.replay,
      redis: { prefix: config.redis.prefix },
    },
    ...kafkaOf(rt),
    mongo: rt.mongo,
    redis: rt.redis,
    subscriber: rt.subscriber,
    partners: rt.partners,
    metrics: rt.metrics,
    logger: rt.logger,
  };
}

// The manager's, with the reader of the dispatcher's replies to its commands.
export function managerOptions(rt: Runtime, replies: ReplyWaiter<CallbackReply>): ManagerOptions {
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
    redis: rt.redis,
    locks: rt.locks,
    kafka: { producer: rt.producer, codec: rt.codec, topics: rt.topics },
    replies,
    logger: rt.logger,
    metrics: rt.metrics,
  };
}
