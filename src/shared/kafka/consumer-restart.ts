import type { Consumer, ConsumerRunConfig, ConsumerSubscribeTopic, ConsumerSubscribeTopics } from 'kafkajs';

const FIRST_PAUSE_MS = 1000;
const MAX_PAUSE_MS = 30_000;

// kafkajs restarts a crashed consumer only when the error that crashed it is retriable. A broker
// outage that outlasts its retries can end in one that is not ("Failed to find group coordinator",
// "No broker available"), and the consumer then stays down for good while the process lives on: an
// ingress whose reply consumer never fetches again, a retry tier nobody reads. After such a crash
// this connects, subscribes and runs the consumer again exactly as it was asked to, pausing longer
// each time that fails, until its owner disconnects it.
export function restartAfterAnyCrash(consumer: Consumer): Consumer {
  const subscriptions: (ConsumerSubscribeTopics | ConsumerSubscribeTopic)[] = [];
  let runConfig: ConsumerRunConfig | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let pauseMs = FIRST_PAUSE_MS;

  const schedule = (): void => {
    if (stopped || timer) return;
    // Unref'd: a consumer waiting to be restarted is no reason on its own to keep a process alive.
    timer = setTimeout(() => void restart(), pauseMs).unref();
    pauseMs = Math.min(pauseMs * 2, MAX_PAUSE_MS);
  };

  const restart = async (): Promise<void> => {
    timer = null;
    if (stopped || !runConfig) return;
    try {
      await consumer.connect();
      for (const s of subscriptions) await consumer.subscribe(s);
      await consumer.run(runConfig);
      consumer.logger().warn('Restarted a consumer that kafkajs would not restart after its crash');
    } catch (err) {
      consumer.logger().error(`Could not restart the consumer: ${(err as Error).message}`);
      await consumer.disconnect().catch(() => undefined);
      schedule();
    }
  };

  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (!payload.restart) schedule();
  });
  consumer.on(consumer.events.GROUP_JOIN, () => {
    pauseMs = FIRST_PAUSE_MS;
  });

  return {
    ...consumer,
    subscribe: async (s) => {
      subscriptions.push(s);
      await consumer.subscribe(s);
    },
    run: async (config) => {
      runConfig = config ?? {};
      await consumer.run(config);
    },
    disconnect: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await consumer.disconnect();
    },
  };
}
