import type { CapScope } from '../processor/commands';

// What a partner's people and its managers may be told of, each chosen per person. The daily
// summary is asked for (opt-in); every other kind is on until the person turns it off.
export const ALERT_KINDS = [
  'endpoint_paused',
  'endpoint_resumed',
  'circuit_opened',
  'circuit_closed',
  'deliveries_dead',
  'cap_warning',
  'cap_reached',
  'secret_grace_ending',
  'daily_summary',
] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export const DEFAULT_ALERT_KINDS: readonly AlertKind[] = ALERT_KINDS.filter((k) => k !== 'daily_summary');

export const isAlertKind = (value: unknown): value is AlertKind =>
  typeof value === 'string' && (ALERT_KINDS as readonly string[]).includes(value);

export type EndpointKind = 'callback' | 'postback';

// One alert, with only what its mail says: a partner, an endpoint, counts and times. No lead's data.
export type Alert =
  | {
      kind: 'endpoint_paused' | 'endpoint_resumed' | 'circuit_opened' | 'circuit_closed';
      partnerId: string;
      endpoint: EndpointKind;
      at: Date;
    }
  | { kind: 'deliveries_dead'; partnerId: string; from: Date; to: Date; count: number }
  | {
      kind: 'cap_warning' | 'cap_reached';
      partnerId: string;
      scope: CapScope;
      country: string | null;
      limit: number;
      used: number;
      counter: string; // the cap's counter of the day or hour: one alert of a kind per counter
    }
  | { kind: 'secret_grace_ending'; partnerId: string; until: Date }
  | {
      kind: 'daily_summary';
      partnerId: string;
      day: string; // the readers' own day, counted as the partner's report day of that date
      counts: { received: number; accepted: number; rejected: number; ftd: number };
      // Whom it is due for: the people whose last whole day it is, and the webhook if it is the partner's.
      audience: { accountIds: readonly string[]; webhook: boolean };
    };

// Who may be told: a partner's person (the portal) or a manager who looks after the partner (the
// console), with the kinds they chose.
export interface Recipient {
  accountId: string;
  realm: 'portal' | 'manager';
  email: string;
  kinds: readonly AlertKind[];
  timeZone: string | null; // their own (a partner's person's setting; a manager has none)
}

// Whether an alert is for this person at all (a summary is for those whose day it is), and for the
// partner's webhook.
export const isFor = (alert: Alert, accountId: string): boolean =>
  alert.kind !== 'daily_summary' || alert.audience.accountIds.includes(accountId);
export const isForWebhook = (alert: Alert): boolean => alert.kind !== 'daily_summary' || alert.audience.webhook;
