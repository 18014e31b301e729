import { createHash } from 'node:crypto';
import type { TemplateName } from '../shared/mail/templates';
import { isFor, type Alert, type Recipient } from './alert-kinds';

export interface AlertRules {
  periodMs: number; // an endpoint's or circuit's alert of one kind goes once per period
  capWarnPercent: number;
}

// One mail to queue: its id is the fence (the same alert to the same person is one id, however
// often it is decided), its values what the template shows.
export interface AlertMail {
  id: string;
  template: TemplateName;
  to: string;
  values: Record<string, string>;
}

const TEMPLATE: Readonly<Record<Alert['kind'], TemplateName>> = {
  endpoint_paused: 'alert-endpoint-paused',
  endpoint_resumed: 'alert-endpoint-resumed',
  circuit_opened: 'alert-circuit-opened',
  circuit_closed: 'alert-circuit-closed',
  deliveries_dead: 'alert-deliveries-dead',
  cap_warning: 'alert-cap-warning',
  cap_reached: 'alert-cap-reached',
  secret_grace_ending: 'alert-secret-grace-ending',
  daily_summary: 'alert-daily-summary',
};

// What makes two alerts the same one: a circuit that opens twice in a period is told once; a
// digest, a cap's counter, a grace and a day once each.
export function alertKey(alert: Alert, periodMs: number): string {
  switch (alert.kind) {
    case 'endpoint_paused':
    case 'endpoint_resumed':
    case 'circuit_opened':
    case 'circuit_closed':
      return `${alert.kind}|${alert.partnerId}|${alert.endpoint}|${Math.floor(alert.at.getTime() / periodMs)}`;
    case 'deliveries_dead':
      return `${alert.kind}|${alert.partnerId}|${alert.from.getTime()}`;
    case 'cap_warning':
    case 'cap_reached':
      return `${alert.kind}|${alert.counter}`;
    case 'secret_grace_ending':
      return `${alert.kind}|${alert.partnerId}|${alert.until.getTime()}`;
    case 'daily_summary':
      return `${alert.kind}|${alert.partnerId}|${alert.day}`;
  }
}

export const mailIdOf = (key: string, accountId: string): string =>
  `ml-al-${createHash('sha256').update(`${key}|${accountId}`).digest('hex').slice(0, 32)}`;

const utc = (d: Date): string => d.toISOString().slice(0, 16).replace('T', ' ');

function capName(alert: Extract<Alert, { kind: 'cap_warning' | 'cap_reached' }>): string {
  const period = alert.scope.endsWith('_daily') ? 'daily' : 'hourly';
  return alert.country ? `${period} cap for ${alert.country}` : `${period} cap`;
}

// Where the mail sends its reader: the partner's portal page, or the partner's page in the console.
function pathOf(alert: Alert, realm: Recipient['realm']): string {
  if (realm === 'manager') return `/console/#/partners/${encodeURIComponent(alert.partnerId)}`;
  if (alert.kind === 'secret_grace_ending') return '/portal/#/integration';
  if (alert.kind.startsWith('cap_') || alert.kind === 'daily_summary') return '/portal/#/overview';
  return '/portal/#/deliveries';
}

function valuesOf(alert: Alert, partner: string): Record<string, string> {
  switch (alert.kind) {
    case 'endpoint_paused':
    case 'endpoint_resumed':
    case 'circuit_opened':
    case 'circuit_closed':
      return { partner, endpoint: alert.endpoint, at: utc(alert.at) };
    case 'deliveries_dead':
      return { partner, count: String(alert.count), from: utc(alert.from), to: utc(alert.to) };
    case 'cap_warning':
    case 'cap_reached': {
      const percent = String(Math.floor((alert.used / alert.limit) * 100));
      const window = alert.scope.endsWith('_daily') ? 'day' : 'hour';
      return { partner, cap: capName(alert), percent, used: String(alert.used), limit: String(alert.limit), window };
    }
    case 'secret_grace_ending':
      return { partner, until: utc(alert.until) };
    case 'daily_summary':
      return {
        partner,
        day: alert.day,
        ...Object.fromEntries(Object.entries(alert.counts).map(([k, v]) => [k, String(v)])),
      };
  }
}

// The mails one alert makes: one to each person who chose its kind, each with its fence id.
export function alertMails(
  alert: Alert,
  partnerName: string,
  recipients: readonly Recipient[],
  pagesUrl: string,
  rules: Pick<AlertRules, 'periodMs'>,
): AlertMail[] {
  const key = alertKey(alert, rules.periodMs);
  const values = valuesOf(alert, partnerName);
  return recipients
    .filter((r) => r.kinds.includes(alert.kind) && isFor(alert, r.accountId))
    .map((r) => ({
      id: mailIdOf(key, r.accountId),
      template: TEMPLATE[alert.kind],
      to: r.email,
      values: { ...values, link: `${pagesUrl}${pathOf(alert, r.realm)}` },
    }));
}
