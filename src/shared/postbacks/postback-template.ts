import type { LeadEvent, PartnerSettings } from '../schemas';

// Postback URL templates: `{macro}` names in the path and query of an https URL, filled
// with URL-encoded values of one lead event. Pure: the manager checks and previews templates with it,
// the dispatcher fills them.

export const POSTBACK_MACROS = [
  'external_id',
  'internal_id',
  'event',
  'event_id',
  'status',
  'our_status',
  'is_depositor',
  'sub_id',
  'click_id',
  'source',
  'funnel',
  'timestamp',
  'unix_ts',
  'token',
] as const;
export type PostbackMacro = (typeof POSTBACK_MACROS)[number];
export type PostbackValues = Record<PostbackMacro, string>;

// Named apart so the refusal says why: no macro ever yields money or personal data.
const MONEY = new Set(['amount', 'currency', 'ftd_amount', 'rtd_amount', 'deposit_amount', 'payout', 'revenue']);
const PERSONAL = new Set([
  'phone',
  'email',
  'first_name',
  'last_name',
  'full_name',
  'name',
  'ip',
  'user_agent',
  'address',
  'metadata',
  'landing_url',
  'birth_date',
]);

// What the record and the manager see instead of the token.
export const MASKED_TOKEN = '***';

const MACRO = /\{([^{}]*)\}/g;

export type Postbacks = NonNullable<PartnerSettings['postbacks']>;

export interface TemplateRules {
  allowHttp: boolean;
  tokenSet: boolean;
}

// Why a template cannot be saved, naming the macro or the part of the URL at fault; null when it can.
export function templateProblem(template: string, rules: TemplateRules): string | null {
  for (const [, name] of template.matchAll(MACRO)) {
    const macro = name as string;
    if (MONEY.has(macro.toLowerCase())) return `names {${macro}}: money is never sent in a postback`;
    if (PERSONAL.has(macro.toLowerCase())) return `names {${macro}}: personal data is never sent in a postback`;
    if (!(POSTBACK_MACROS as readonly string[]).includes(macro))
      return `names unknown macro {${macro}} (known: ${POSTBACK_MACROS.map((m) => `{${m}}`).join(', ')})`;
    if (macro === 'token' && !rules.tokenSet) return 'names {token}, but no postback token is set (postbacks.token)';
  }
  const bare = template.replace(MACRO, 'x');
  if (/[{}]/.test(bare)) return 'has a { or } that is not part of a {macro}';
  // A macro in the host would let a lead's data choose where the request goes.
  const authority = template.includes('//')
    ? (template.slice(template.indexOf('//') + 2).split(/[/?#]/, 1)[0] ?? '')
    : '';
  if (authority.includes('{')) return 'has a macro in its host: macros go in the path and query only';
  const url = URL.canParse(bare) ? new URL(bare) : null;
  if (!url) return 'is not a URL';
  if (url.protocol !== 'https:' && !(rules.allowHttp && url.protocol === 'http:')) return 'must be an https URL';
  if (url.username || url.password) return 'must not carry credentials';
  return null;
}

// Every template of a partner's postback settings with its JSON path, for checking on save.
export function templatesOf(postbacks: Postbacks): { path: string; template: string }[] {
  const all = postbacks.url ? [{ path: '/postbacks/url', template: postbacks.url }] : [];
  for (const [i, own] of (postbacks.templates ?? []).entries())
    all.push({ path: `/postbacks/templates/${i}/url`, template: own.url });
  return all;
}

// The template and status mapping a partner's postback for this event uses, or null when none goes.
export function postbackFor(
  postbacks: Postbacks | null | undefined,
  partnerMapping: Readonly<Record<string, string>> | undefined,
  event: LeadEvent['event'],
): { template: string; statusMapping: Readonly<Record<string, string>> } | null {
  if (!postbacks) return null;
  const whitelist = postbacks.events ?? [];
  if (whitelist.length > 0 && !whitelist.includes(event)) return null;
  const template = postbacks.templates?.find((t) => t.event === event)?.url ?? postbacks.url;
  if (!template) return null;
  return { template, statusMapping: postbackMapping(postbacks, partnerMapping, event) };
}

// {status} of this event's postbacks: the event's own mapping, else the postbacks', else the partner's.
export function postbackMapping(
  postbacks: Postbacks | null | undefined,
  partnerMapping: Readonly<Record<string, string>> | undefined,
  event: LeadEvent['event'],
): Readonly<Record<string, string>> {
  return (
    postbacks?.templates?.find((t) => t.event === event)?.status_mapping ??
    postbacks?.status_mapping ??
    partnerMapping ??
    {}
  );
}

// The macro values of one event: status mapped (a code with no entry is sent unchanged), tracking
// fields empty when the lead had none.
export function postbackValues(
  event: LeadEvent,
  statusMapping: Readonly<Record<string, string>>,
  token: string | null,
): PostbackValues {
  const at = new Date(event.occurred_at);
  const tracking = event.tracking ?? {};
  return {
    external_id: event.external_lead_id,
    internal_id: event.lead_id,
    event: event.event,
    event_id: event.event_id,
    status: Object.prototype.hasOwnProperty.call(statusMapping, event.our_status)
      ? (statusMapping[event.our_status] as string)
      : event.our_status,
    our_status: event.our_status,
    is_depositor: event.is_depositor ? '1' : '0',
    sub_id: tracking.sub_id ?? '',
    click_id: tracking.click_id ?? '',
    source: tracking.source ?? '',
    funnel: tracking.funnel ?? '',
    timestamp: at.toISOString(),
    unix_ts: String(Math.floor(at.getTime() / 1000)),
    token: token ?? '',
  };
}

// The URL to call, and the same URL with the token masked (what is recorded and shown).
export function fillTemplate(template: string, values: PostbackValues): { url: string; masked: string } {
  const fill = (token: string) =>
    template.replace(MACRO, (_, name: string) =>
      encodeURIComponent(name === 'token' ? token : (values[name as PostbackMacro] ?? '')),
    );
  return { url: fill(values.token), masked: fill(MASKED_TOKEN) };
}
