import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { DeliveryState } from '../shared/mongo/documents';

// Outcome of one lead event for one partner at one step: skipped (no URL, not whitelisted), or the
// result of an attempt. An attempt refused by a guard counts as refused_* only.
export type DeliveryOutcome = 'delivered' | 'retry_scheduled' | 'dead' | 'skipped' | 'refused_money' | 'refused_address';

export interface DispatcherMetrics {
  deliveries: Counter<'event' | 'outcome' | 'partner_id'>;
  attemptSeconds: Histogram<'verdict'>;
  retries: Counter<'tier'>;
  deadLetters: Counter<string>;
  retryLateness: Histogram<'path'>;
  undecodable: Counter<'topic'>;
}

const STATE_CACHE_MS = 5000;

export function dispatcherMetrics(registry: Registry, countByState: () => Promise<Record<DeliveryState, number>>): DispatcherMetrics {
  let cached: { at: number; counts: Record<DeliveryState, number> } | null = null;
  new Gauge({
    name: 'lead_intake_callback_deliveries',
    help: 'Delivery records by state (queued, delivered, dead), counted in MongoDB at most every 5 s',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      if (!cached || Date.now() - cached.at > STATE_CACHE_MS) {
        try {
          cached = { at: Date.now(), counts: await countByState() };
        } catch {
          // Keep the last counts: a scrape must not fail because MongoDB is slow for a moment.
        }
      }
      if (cached) for (const [state, n] of Object.entries(cached.counts)) this.set({ state }, n);
    },
  });
  return {
    deliveries: new Counter({
      name: 'lead_intake_callback_deliveries_total',
      help: 'Callback attempts and skips by event, outcome (delivered, retry_scheduled, dead, skipped, refused_money, refused_address) and partner',
      labelNames: ['event', 'outcome', 'partner_id'], registers: [registry],
    }),
    attemptSeconds: new Histogram({
      name: 'lead_intake_callback_attempt_duration_seconds',
      help: 'Duration of one callback HTTP attempt, by verdict (delivered, retriable, permanent, unsendable)',
      labelNames: ['verdict'], buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    retries: new Counter({
      name: 'lead_intake_callback_retries_total', help: 'Retries scheduled, by tier topic (1 to 4)',
      labelNames: ['tier'], registers: [registry],
    }),
    deadLetters: new Counter({
      name: 'lead_intake_callback_dead_letters_total', help: 'Deliveries that used up their attempts and went to the dead topic',
      registers: [registry],
    }),
    retryLateness: new Histogram({
      name: 'lead_intake_callback_retry_lateness_seconds',
      help: 'How long after its due time a retry attempt started, by path (topic: retry topics, sweep: recovered by the sweeper)',
      labelNames: ['path'], buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    undecodable: new Counter({
      name: 'lead_intake_callback_undecodable_messages_total', help: 'Messages the dispatcher could not decode and skipped, by topic',
      labelNames: ['topic'], registers: [registry],
    }),
  };
}
