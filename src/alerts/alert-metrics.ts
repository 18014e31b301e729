import { Counter, Gauge, type Registry } from 'prom-client';
import { BACKLOG_BOUND } from '../shared/mongo/leased-work';
import { ALERT_KINDS, type AlertKind } from './alert-kinds';
import type { WebhookOutbox } from './webhook-outbox';

// What operators see of the alerts path. Labels are the alert's kind and an outcome only (a fixed
// set each, every series there from the start at 0): never a partner, a person or an address.
export type WebhookOutcome = 'delivered' | 'retry' | 'dead';

export interface AlertMetrics {
  events: Counter<'kind'>;
  told: Counter<'kind' | 'channel'>;
  webhookPosts: Counter<'outcome'>;
}

export function alertMetrics(registry: Registry, webhooks: WebhookOutbox): AlertMetrics {
  const events = new Counter({
    name: 'lead_intake_alert_events_total',
    help: 'Alert events the alerts worker read from partners.alerts (published by the dispatchers), by kind',
    labelNames: ['kind'],
    registers: [registry],
  });
  const told = new Counter({
    name: 'lead_intake_alerts_told_total',
    help: "Alerts decided and queued, by kind and channel (mail: one per person told; webhook: one per partner's webhook); one already queued is not counted again",
    labelNames: ['kind', 'channel'],
    registers: [registry],
  });
  const webhookPosts = new Counter({
    name: 'lead_intake_alert_webhook_posts_total',
    help: "Attempts to post an alert to a partner's webhook, by outcome (delivered, retry, dead)",
    labelNames: ['outcome'],
    registers: [registry],
  });
  new Gauge({
    name: 'lead_intake_alert_webhook_outbox',
    help: `Posts to partners' alert webhooks by state (queued: waiting for a try; dead: given up), counted up to ${BACKLOG_BOUND}`,
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      for (const state of ['queued', 'dead'] as const) this.set({ state }, await webhooks.count(state, BACKLOG_BOUND));
    },
  });
  for (const kind of ALERT_KINDS) {
    if (isEventKind(kind)) events.inc({ kind }, 0);
    for (const channel of ['mail', 'webhook']) told.inc({ kind, channel }, 0);
  }
  for (const outcome of ['delivered', 'retry', 'dead'] satisfies WebhookOutcome[]) webhookPosts.inc({ outcome }, 0);
  return { events, told, webhookPosts };
}

// The kinds a role publishes as an event (the others the worker finds by its scans).
const isEventKind = (kind: AlertKind): boolean => kind.startsWith('endpoint_') || kind.startsWith('circuit_');
