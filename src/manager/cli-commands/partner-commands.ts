import { enc, PAGE_FLAGS, type Command, type Flag } from './command-shape';

// The commands about partners: their settings, keys, endpoints, replays and test callbacks and postbacks.
const PARTNER_FLAGS: Record<string, Flag> = {
  name: { kind: 'text', field: 'name' },
  'callback-url': { kind: 'nullable-text', field: 'callback_url' },
  events: { kind: 'list', field: 'callback_events' },
  'status-mapping': { kind: 'json', field: 'status_mapping' },
  'field-mapping': { kind: 'json', field: 'field_mapping' },
  'intake-per-minute': { kind: 'int', field: 'rate_limits.intake_per_minute' },
  'status-per-minute': { kind: 'int', field: 'rate_limits.status_per_minute' },
  'blocked-countries': { kind: 'list', field: 'blocked_countries' },
  'blocked-sources': { kind: 'list', field: 'blocked_sources' },
  'blocked-ip-ranges': { kind: 'list', field: 'blocked_ip_ranges' },
  'dedup-scope': { kind: 'text', field: 'dedup_scope' },
  'dedup-window-days': { kind: 'int', field: 'dedup_window_days' },
  'time-zone': { kind: 'text', field: 'time_zone' },
  caps: { kind: 'json', field: 'caps' },
  disabled: { kind: 'bool', field: 'disabled' },
  mode: { kind: 'text', field: 'mode' },
  'risk-threshold': { kind: 'nullable-int', field: 'risk_threshold' },
  'signature-scheme': { kind: 'text', field: 'signature_scheme' },
  postbacks: { kind: 'json', field: 'postbacks' },
};

const KIND_FLAGS: Record<string, Flag> = { kind: { kind: 'text', field: 'kind' } };

export const PARTNER_COMMANDS: Record<string, Command> = {
  'create-partner': {
    summary: 'Create a partner; prints its secrets (shown once)',
    method: 'POST',
    path: () => '/api/affiliates',
    flags: PARTNER_FLAGS,
    sends: 'body',
  },
  'list-partners': {
    summary: 'List partners',
    method: 'GET',
    path: () => '/api/affiliates',
    flags: PAGE_FLAGS,
    sends: 'query',
  },
  'show-partner': {
    summary: 'Show a partner',
    method: 'GET',
    path: (id) => `/api/affiliates/${enc(id)}`,
    needsId: 'partner id',
  },
  'update-partner': {
    summary: 'Change partner settings',
    method: 'PATCH',
    path: (id) => `/api/affiliates/${enc(id)}`,
    needsId: 'partner id',
    flags: PARTNER_FLAGS,
    sends: 'body',
  },
  'rotate-key': {
    summary:
      'Issue a new api_key (--secrets hmac_secret,callback_secret rotates those too; --grace-seconds N keeps the old ones working that long)',
    method: 'POST',
    path: (id) => `/api/affiliates/${enc(id)}/rotate-key`,
    needsId: 'partner id',
    flags: { secrets: { kind: 'list', field: 'secrets' }, 'grace-seconds': { kind: 'int', field: 'grace_seconds' } },
    sends: 'body',
  },
  'endpoint-health': {
    summary:
      "Show a partner's callback endpoint (--kind postback: its tracker): success rate, failures in a row, paused, held deliveries",
    method: 'GET',
    path: (id) => `/api/affiliates/${enc(id)}/endpoint-health`,
    needsId: 'partner id',
    flags: KIND_FLAGS,
    sends: 'query',
  },
  'resume-endpoint': {
    summary: 'Resume a paused endpoint (--kind postback: the tracker): its held deliveries go out',
    method: 'POST',
    path: (id) => `/api/affiliates/${enc(id)}/endpoint/resume`,
    needsId: 'partner id',
    flags: KIND_FLAGS,
    sends: 'query',
  },
  replay: {
    summary: "Re-send a partner's callbacks created between --from and --to (ISO times; --events a,b for some only)",
    method: 'POST',
    path: (id) => `/api/affiliates/${enc(id)}/replay`,
    needsId: 'partner id',
    sends: 'body',
    flags: {
      from: { kind: 'text', field: 'from' },
      to: { kind: 'text', field: 'to' },
      events: { kind: 'list', field: 'events' },
    },
  },
  'show-replay': {
    summary: 'Show a replay job and its progress',
    method: 'GET',
    path: (id) => `/api/replays/${enc(id)}`,
    needsId: 'replay job id',
  },
  'test-callback': {
    summary: "Send a synthetic lead.accepted to the partner's callback URL",
    method: 'POST',
    path: (id) => `/api/affiliates/${enc(id)}/test-callback`,
    needsId: 'partner id',
  },
  'test-postback': {
    summary:
      "Send the partner's postback for a sample lead once (--event lead.ftd: that event's template; default lead.accepted)",
    method: 'POST',
    path: (id) => `/api/affiliates/${enc(id)}/test-postback`,
    needsId: 'partner id',
    flags: { event: { kind: 'text', field: 'event' } },
    sends: 'body',
  },
  'postback-preview': {
    summary:
      'Print the URL a postback template yields for a sample lead, token masked (--template URL, default the saved one; --event)',
    method: 'POST',
    path: (id) => `/api/affiliates/${enc(id)}/postback-preview`,
    needsId: 'partner id',
    sends: 'body',
    flags: {
      template: { kind: 'text', field: 'template' },
      event: { kind: 'text', field: 'event' },
      'status-mapping': { kind: 'json', field: 'status_mapping' },
    },
  },
};
