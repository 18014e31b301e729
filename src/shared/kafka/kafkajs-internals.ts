// The one door to kafkajs's private modules. kafkajs is in maintenance (no release since 2023) and
// three of its internals are patched at load: the consumer group's join and heartbeat
// (hand-over.ts), the offset manager's commit (commit-coordinator.ts) and the request queue's
// timer (request-queue-timer.ts). They reach kafkajs's source only through here, and loading refuses
// any kafkajs but the one they were written against (package.json pins it): a release that moved a
// patched internal would otherwise change the service's guarantees without a sound.
export const PATCHED_KAFKAJS = '2.2.4';

export function assertPatchedKafkajs(version: string): void {
  if (version !== PATCHED_KAFKAJS) {
    throw new Error(
      `kafkajs ${version} is installed, but src/shared/kafka patches the internals of kafkajs ${PATCHED_KAFKAJS}: check each patch against it, then move PATCHED_KAFKAJS`,
    );
  }
}

assertPatchedKafkajs((require('kafkajs/package.json') as { version: string }).version);

type Internal = 'consumer/consumerGroup' | 'consumer/offsetManager' | 'network/requestQueue';

export function kafkajsInternal<T>(path: Internal): T {
  return require(`kafkajs/src/${path}`) as T;
}
