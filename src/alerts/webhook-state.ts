import { createHash } from 'node:crypto';
import type { Alert } from './alert-kinds';
import { alertKey } from './alert-mails';

// An alert posted to the partner's webhook, as a state machine like a mail's: queued (due at
// next_at) → sending (claimed by one sender until claimed_until) → delivered | queued again (the
// callbacks' retry schedule) | dead. The body is the alert's facts only, never a lead's data.
interface WebhookBase {
  _id: string; // wh-al-<hash of the alert>: the fence, one post per alert
  partner_id: string;
  event: string; // X-Event: alert.<kind>
  body: Record<string, unknown>;
  created_at: Date;
  attempts_made: number;
  attempts_left: number;
  last_error: string | null;
  last_http_status: number | null;
}

export type WebhookDoc =
  | (WebhookBase & { state: 'queued'; next_at: Date })
  | (WebhookBase & { state: 'sending'; claimed_until: Date })
  | (WebhookBase & { state: 'delivered'; delivered_at: Date })
  | (WebhookBase & { state: 'dead'; dead_at: Date });

const iso = (d: Date) => d.toISOString();

// What the webhook receives: the kind, the partner and the alert's facts, dates as ISO strings.
export function webhookBody(alert: Alert): Record<string, unknown> {
  const { kind, partnerId, ...facts } = alert;
  const values = Object.fromEntries(
    Object.entries(facts)
      .filter(([k]) => k !== 'counter' && k !== 'audience')
      .map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v instanceof Date ? iso(v) : v]),
  );
  return { alert: kind, partner_id: partnerId, ...values };
}

export function webhookId(alert: Alert, periodMs: number): string {
  return `wh-al-${createHash('sha256').update(alertKey(alert, periodMs)).digest('hex').slice(0, 32)}`;
}
