import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// The mails the service sends, each a file in templates/: a "Subject:" line, a blank line, the
// plain text. Values are filled in by name ({{link}}); what a template may name is fixed here, so
// no value a caller did not mean (and no lead's data) can reach a mail.
export const TEMPLATE_VALUES = {
  'manager-invitation': ['service', 'link', 'expires_at'],
  'portal-invitation': ['service', 'link', 'expires_at'],
  'password-reset': ['service', 'link', 'expires_at'],
  'new-sign-in': ['service', 'at', 'network', 'link'],
  // Alerts (src/alerts): a partner's name and counts, never anything of a lead.
  'alert-endpoint-paused': ['service', 'partner', 'endpoint', 'at', 'link'],
  'alert-endpoint-resumed': ['service', 'partner', 'endpoint', 'at', 'link'],
  'alert-circuit-opened': ['service', 'partner', 'endpoint', 'at', 'link'],
  'alert-circuit-closed': ['service', 'partner', 'endpoint', 'at', 'link'],
  'alert-deliveries-dead': ['service', 'partner', 'count', 'from', 'to', 'link'],
  'alert-cap-warning': ['service', 'partner', 'cap', 'percent', 'used', 'limit', 'window', 'link'],
  'alert-cap-reached': ['service', 'partner', 'cap', 'limit', 'window', 'link'],
  'alert-secret-grace-ending': ['service', 'partner', 'until', 'link'],
  'alert-daily-summary': ['service', 'partner', 'day', 'received', 'accepted', 'rejected', 'ftd', 'link'],
} as const;

export type TemplateName = keyof typeof TEMPLATE_VALUES;
export type TemplateValues<T extends TemplateName> = Record<(typeof TEMPLATE_VALUES)[T][number], string>;

export const TEMPLATE_NAMES = Object.keys(TEMPLATE_VALUES) as TemplateName[];

export interface RenderedMail {
  subject: string;
  text: string;
}

const TEMPLATE_DIR = join(__dirname, 'templates');
const PLACEHOLDER = /\{\{(\w+)\}\}/g;

// Every template read and checked once: a placeholder the template may not use fails at start.
function load(name: TemplateName): { subject: string; body: string } {
  const raw = readFileSync(join(TEMPLATE_DIR, `${name}.txt`), 'utf8');
  const match = /^Subject: (.+)\n\n([\s\S]+)$/.exec(raw);
  if (!match) throw new Error(`mail template ${name}: a "Subject:" line and a blank line must open it`);
  const allowed: readonly string[] = TEMPLATE_VALUES[name];
  for (const [, key] of raw.matchAll(PLACEHOLDER))
    if (!allowed.includes(key as string)) throw new Error(`mail template ${name}: {{${key}}} is not one of its values`);
  return { subject: match[1] as string, body: match[2] as string };
}

const TEMPLATES = new Map(TEMPLATE_NAMES.map((name) => [name, load(name)]));

export function renderMail<T extends TemplateName>(name: T, values: TemplateValues<T>): RenderedMail {
  const t = TEMPLATES.get(name) as { subject: string; body: string };
  const fill = (s: string) => s.replace(PLACEHOLDER, (_, key: string) => (values as Record<string, string>)[key] ?? '');
  // A value never breaks the subject header.
  return { subject: fill(t.subject).replace(/[\r\n]+/g, ' '), text: fill(t.body) };
}
