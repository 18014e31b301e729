import { parseArgs } from 'node:util';
import { ServiceError } from '../shared/errors';

// The operator's command line, as pure argument handling: `<command> [id] [--flags]` becomes the
// HTTP request the manager API expects. cli.ts sends it.
export interface CliRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: Record<string, unknown>;
}

export class UsageError extends ServiceError {
  constructor(message: string) {
    super('usage', message, { retriable: false });
  }
}

type Kind = 'text' | 'nullable-text' | 'list' | 'json' | 'int' | 'nullable-int' | 'bool';

// A flag and the (dotted) field of the body or query string it fills.
interface Flag {
  kind: Kind;
  field: string;
}

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

const AGENT_FLAGS: Record<string, Flag> = {
  name: { kind: 'text', field: 'name' },
  active: { kind: 'bool', field: 'active' },
  countries: { kind: 'list', field: 'countries' },
  languages: { kind: 'list', field: 'languages' },
  'time-zone': { kind: 'text', field: 'time_zone' },
  'working-hours': { kind: 'json', field: 'working_hours' },
};

// The small lists (partners, agents) page by offset; the big ones by the next_cursor of the page before.
const PAGE_FLAGS: Record<string, Flag> = {
  limit: { kind: 'int', field: 'limit' },
  offset: { kind: 'int', field: 'offset' },
};

const CURSOR_FLAGS: Record<string, Flag> = {
  limit: { kind: 'int', field: 'limit' },
  cursor: { kind: 'text', field: 'cursor' },
};

const TIME_RANGE_FLAGS: Record<string, Flag> = {
  from: { kind: 'text', field: 'from' },
  to: { kind: 'text', field: 'to' },
};

const REPORT_FLAGS: Record<string, Flag> = {
  from: { kind: 'text', field: 'from' },
  to: { kind: 'text', field: 'to' },
  'group-by': { kind: 'text', field: 'group_by' },
  'affiliate-id': { kind: 'text', field: 'affiliate_id' },
  country: { kind: 'text', field: 'country' },
  source: { kind: 'text', field: 'source' },
};

const KIND_FLAGS: Record<string, Flag> = { kind: { kind: 'text', field: 'kind' } };

interface Command {
  summary: string;
  method: CliRequest['method'];
  path: (id: string) => string;
  needsId?: string; // what the positional id names, when the command takes one
  flags?: Record<string, Flag>;
  sends?: 'body' | 'query';
}

const enc = encodeURIComponent;

export const COMMANDS: Record<string, Command> = {
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
  'list-deliveries': {
    summary: 'List callback deliveries, newest first by when each record was created (--from, --to: ISO times)',
    method: 'GET',
    path: () => '/api/deliveries',
    sends: 'query',
    flags: {
      state: { kind: 'text', field: 'state' },
      'affiliate-id': { kind: 'text', field: 'affiliate_id' },
      event: { kind: 'text', field: 'event' },
      ...TIME_RANGE_FLAGS,
      ...CURSOR_FLAGS,
    },
  },
  'show-delivery': {
    summary: 'Show a delivery and its attempts',
    method: 'GET',
    path: (id) => `/api/deliveries/${enc(id)}`,
    needsId: 'delivery id',
  },
  'retry-delivery': {
    summary: 'Retry a dead delivery',
    method: 'POST',
    path: (id) => `/api/deliveries/${enc(id)}/retry`,
    needsId: 'delivery id',
  },
  'retry-dead': {
    summary: "Retry all of a partner's dead deliveries",
    method: 'POST',
    path: (id) => `/api/affiliates/${enc(id)}/deliveries/retry-dead`,
    needsId: 'partner id',
  },
  'create-agent': {
    summary: 'Create an agent',
    method: 'POST',
    path: () => '/api/agents',
    flags: AGENT_FLAGS,
    sends: 'body',
  },
  'list-agents': {
    summary: 'List agents',
    method: 'GET',
    path: () => '/api/agents',
    flags: { active: { kind: 'bool', field: 'active' }, ...PAGE_FLAGS },
    sends: 'query',
  },
  'show-agent': {
    summary: 'Show an agent',
    method: 'GET',
    path: (id) => `/api/agents/${enc(id)}`,
    needsId: 'agent id',
  },
  'update-agent': {
    summary: 'Change an agent',
    method: 'PATCH',
    path: (id) => `/api/agents/${enc(id)}`,
    needsId: 'agent id',
    flags: AGENT_FLAGS,
    sends: 'body',
  },
  'show-lead': {
    summary: 'Show a lead: status, history, risk, sandbox mark (never its personal data)',
    method: 'GET',
    path: (id) => `/api/leads/${enc(id)}`,
    needsId: 'lead id',
  },
  leads: {
    summary:
      'List leads, newest first, never their personal data (--from, --to: ISO times of creation; a rare --country or --source may print a short page with a next_cursor)',
    method: 'GET',
    path: () => '/api/leads',
    sends: 'query',
    flags: {
      'affiliate-id': { kind: 'text', field: 'affiliate_id' },
      status: { kind: 'text', field: 'status' },
      country: { kind: 'text', field: 'country_code' },
      source: { kind: 'text', field: 'source' },
      'is-depositor': { kind: 'bool', field: 'is_depositor' },
      ...TIME_RANGE_FLAGS,
      ...CURSOR_FLAGS,
    },
  },
  'agent-leads': {
    summary: "The agent's view: its leads with their risk",
    method: 'GET',
    path: (id) => `/api/agents/${enc(id)}/leads`,
    needsId: 'agent id',
    flags: CURSOR_FLAGS,
    sends: 'query',
  },
  'erase-personal-data': {
    summary: "Erase a lead's personal data (its data key is destroyed; status and history stay)",
    method: 'DELETE',
    path: (id) => `/api/leads/${enc(id)}/personal-data`,
    needsId: 'lead id',
  },
  report: {
    summary:
      "Counts, rates and medians over --from..--to (YYYY-MM-DD, the partner's days), --group-by partner,country,source,day",
    method: 'GET',
    path: () => '/api/reports',
    flags: REPORT_FLAGS,
    sends: 'query',
  },
  'report-csv': {
    summary: 'The same report as CSV',
    method: 'GET',
    path: () => '/api/reports.csv',
    flags: REPORT_FLAGS,
    sends: 'query',
  },
  'audit-log': {
    summary: 'List manager actions',
    method: 'GET',
    path: () => '/api/audit-log',
    sends: 'query',
    flags: {
      'affiliate-id': { kind: 'text', field: 'affiliate_id' },
      action: { kind: 'text', field: 'action' },
      ...CURSOR_FLAGS,
    },
  },
};

export function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => {
    const flags = Object.keys(c.flags ?? {}).map((f) => `[--${f}]`);
    if (c.sends === 'body') flags.push('[--json <object>]');
    return `  ${[name, c.needsId && `<${c.needsId}>`, ...flags].filter(Boolean).join(' ')}\n      ${c.summary}`;
  });
  return [
    'usage: npm run manager -- <command> [id] [--flags]',
    'env: MANAGER_URL (default http://127.0.0.1:8080), MANAGER_TOKEN (required: a service account token, lit_...)',
    'lists are comma-separated; --callback-url none and --risk-threshold none clear them; --json merges a raw JSON body last',
    "list-deliveries, leads, agent-leads and audit-log page by --cursor (the next_cursor printed; stderr names the next page's command)",
    '',
    ...lines,
    '  rebuild-reports',
    "      Recompute the reports from the stored leads: runs here, against MONGO_URL and MONGO_DB (the service's configuration), not the API",
    '  rebuild-lists',
    '      List every stored lead, delivery and audit entry again (after an upgrade from a version without lists); runs here like rebuild-reports',
  ].join('\n');
}

export function parseCommand(argv: readonly string[]): CliRequest {
  const [name, ...rest] = argv;
  const command = name === undefined ? undefined : COMMANDS[name];
  if (!command) throw new UsageError(name ? `unknown command "${name}"` : 'no command given');
  const flags = command.flags ?? {};
  const options = Object.fromEntries(Object.keys(flags).map((f) => [f, { type: 'string' as const }]));
  if (command.sends === 'body') Object.assign(options, { json: { type: 'string' as const } });
  let parsed;
  try {
    parsed = parseArgs({ args: [...rest], options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${name}: ${(err as Error).message}`);
  }
  const [id, ...extra] = parsed.positionals;
  if (command.needsId && !id) throw new UsageError(`${name} needs the ${command.needsId}`);
  if (extra.length > 0 || (!command.needsId && id))
    throw new UsageError(`${name}: unexpected argument "${extra[0] ?? id}"`);

  const fields: Record<string, unknown> = {};
  for (const [flag, def] of Object.entries(flags)) {
    const raw = parsed.values[flag];
    if (typeof raw === 'string') setPath(fields, def.field, convert(flag, def.kind, raw));
  }
  const path = command.path(id ?? '');
  if (command.sends === 'query') return { method: command.method, path: withQuery(path, fields) };
  const json = parsed.values.json;
  const body = typeof json === 'string' ? { ...fields, ...jsonObject('json', json) } : fields;
  return command.sends === 'body' ? { method: command.method, path, body } : { method: command.method, path };
}

// The command that prints the next page of a cursor list (the same one with --cursor set), or null
// when the answer has no next_cursor: a short or empty page may still have one.
export function nextPageCommand(argv: readonly string[], answer: unknown): string | null {
  const cursor = (answer as { next_cursor?: unknown } | null)?.next_cursor;
  if (typeof cursor !== 'string') return null;
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--cursor') i++;
    else if (!arg.startsWith('--cursor=')) kept.push(arg);
  }
  return ['npm run manager --', ...[...kept, '--cursor', cursor].map(shellWord)].join(' ');
}

const shellWord = (word: string): string => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

function convert(flag: string, kind: Kind, raw: string): unknown {
  switch (kind) {
    case 'text':
      return raw;
    case 'nullable-text':
      return raw === 'none' || raw === '' ? null : raw;
    case 'list':
      return raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    case 'json':
      return jsonObject(flag, raw);
    case 'nullable-int':
      return raw === 'none' || raw === '' ? null : convert(flag, 'int', raw);
    case 'int': {
      const n = Number(raw);
      if (!Number.isInteger(n)) throw new UsageError(`--${flag} must be a whole number, got "${raw}"`);
      return n;
    }
    case 'bool':
      if (raw !== 'true' && raw !== 'false') throw new UsageError(`--${flag} must be true or false, got "${raw}"`);
      return raw === 'true';
  }
}

function jsonObject(flag: string, raw: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new UsageError(`--${flag} must be a JSON object, got "${raw}"`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new UsageError(`--${flag} must be a JSON object`);
  return value as Record<string, unknown>;
}

function setPath(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const keys = dotted.split('.');
  const last = keys.pop() as string;
  let node = target;
  for (const key of keys) node = (node[key] ??= {}) as Record<string, unknown>;
  node[last] = value;
}

function withQuery(path: string, fields: Record<string, unknown>): string {
  const query = new URLSearchParams(
    Object.entries(fields).map(([k, v]): [string, string] => [k, String(v)]),
  ).toString();
  return query ? `${path}?${query}` : path;
}
