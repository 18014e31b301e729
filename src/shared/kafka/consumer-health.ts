import type { Consumer } from 'kafkajs';
import type { ReadinessCheck } from '../http/ops-routes';

// A consumer is ready once it has joined its group, and stops being ready when kafkajs gives up on
// it (CRASH without restart) or it stops.
export function consumerReadiness(name: string, consumer: Consumer): ReadinessCheck {
  let state: 'joining' | 'running' | 'crashed' | 'stopped' = 'joining';
  consumer.on(consumer.events.GROUP_JOIN, () => {
    state = 'running';
  });
  consumer.on(consumer.events.CRASH, (e) => {
    if (!e.payload.restart) state = 'crashed';
  });
  consumer.on(consumer.events.STOP, () => {
    state = 'stopped';
  });
  return {
    name,
    check: async () => {
      if (state !== 'running') throw new Error(`consumer ${state}`);
    },
  };
}
