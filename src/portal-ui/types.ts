import type { Health } from '../ui-kit/health-facts';

// The events a partner is told of (callbacks and postbacks alike).
export const EVENTS = ['lead.accepted', 'lead.rejected', 'lead.status_changed', 'lead.ftd', 'lead.rtd'] as const;

// The answers of /portal/api the pages read (src/manager/portal/routes). Never personal data beyond a
// masked phone, never agent identities, never money: the pages can show only what these carry.

export interface Totals {
  received: number;
  accepted: number;
  duplicates: number;
  validation_errors: number;
  rejected: number;
  rejected_by_reason: Record<string, number>;
  contacted: number;
  ftd: number;
  ftd_rate: number | null;
  chargebacks: number;
  chargeback_rate: number | null;
}

export interface Overview {
  days: number;
  from: string;
  to: string;
  time_zone: string;
  totals: Totals;
  by_day: (Totals & { day: string })[];
  by_source: (Totals & { source: string | null })[];
  by_country: (Totals & { country: string | null })[];
}

export interface PortalLead {
  id: string;
  external_id: string;
  status: string;
  reason: string | null;
  country: string | null;
  source: string | null;
  phone: string | null; // masked: +44 79** ***456
  is_depositor?: boolean;
  test?: boolean;
  created_at: string;
}

// An event the partner was told of: the status change and the callback or postback that told it.
export interface TimelineEvent {
  event_id: string;
  event: string;
  status: string;
  at: string;
  reason: string | null;
  deliveries: { id: string; kind: 'callback' | 'postback'; state: string }[];
}

export interface PortalLeadDetails extends PortalLead {
  details: Record<string, string>;
  personal_data: 'kept' | 'erased';
  timeline: TimelineEvent[];
}

export interface Attempt {
  attempt: number;
  at: string;
  http_status: number | null;
  excerpt: string | null;
  duration_ms: number;
  error: string | null;
  url?: string; // a postback's: the URL called, the token masked
}

export interface PortalDelivery {
  id: string;
  kind: 'callback' | 'postback';
  event: string;
  lead_id: string;
  external_id?: string;
  state: 'queued' | 'delivered' | 'dead';
  attempts_made: number;
  attempts_left: number;
  next_attempt_at: string | null;
  last_http_status: number | null;
  last_error: string | null;
  attempts: Attempt[];
  retried_at: string[];
  held_by?: string;
  test: boolean;
  created_at: string;
  updated_at: string;
}

export interface EndpointHealth extends Health {
  kind: 'callback' | 'postback';
}

export interface ReplayJob {
  id: string;
  from: string;
  to: string;
  events: string[];
  state: 'queued' | 'running' | 'done' | 'failed';
  found: number;
  sent: number;
  error: string | null;
}

export interface PortalUser {
  id: string;
  email: string;
  name: string;
  role: 'partner_admin' | 'partner_viewer';
  status: 'invited' | 'active' | 'disabled';
  second_factors: { totp: boolean; passkeys: number };
  last_sign_in_at: string | null;
}

export const SECRETS = ['api_key', 'hmac_secret', 'callback_secret'] as const;

// GET /portal/api/integration: what a developer needs to connect, and the settings a partner may
// change. Never a secret.
export interface Integration {
  mode: 'live' | 'test';
  base_url: string;
  api_document_url: string;
  rate_limits: { window_seconds: number; intake: Quota; status: Quota };
  signing: { requests: string; timestamp_tolerance_seconds: number; callbacks: string; callback_scheme: string };
  callback_url: string | null;
  callback_events: string[]; // empty: every event
  postbacks: { events: string[]; token_set: boolean };
  key_rotated_at: string | null;
  previous_secrets_until: string | null;
  verification_snippets: { language: string; file: string; code: string }[];
}

interface Quota {
  per_minute: number;
  used: number;
}
