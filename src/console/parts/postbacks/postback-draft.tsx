import { EVENTS, mapping, type Postbacks } from '../partner-settings-form';

export type EventName = (typeof EVENTS)[number];

// The form's text as a person edits it; each own template has a key of its own for its labels.
export interface TemplateDraft {
  key: number;
  event: EventName;
  url: string;
  status_mapping: string;
}
export interface Draft {
  url: string;
  templates: TemplateDraft[];
  events: EventName[];
  status_mapping: string;
  sign: boolean;
  token: string;
}

const json = (v: Record<string, string> | undefined) =>
  v && Object.keys(v).length > 0 ? JSON.stringify(v, null, 1) : '';

export function draftOf(p: Postbacks | null | undefined): Draft {
  return {
    url: p?.url ?? '',
    templates: (p?.templates ?? []).map((t, i) => ({
      key: i,
      event: t.event,
      url: t.url,
      status_mapping: json(t.status_mapping),
    })),
    events: p?.events ?? [],
    status_mapping: json(p?.status_mapping),
    sign: p?.sign ?? false,
    token: '',
  };
}

// The postbacks as the API takes them, or null (off) when nothing is set; the server checks every
// template and its message is shown as it is. Own templates left empty are dropped.
export function postbacksOf(d: Draft): Record<string, unknown> | null {
  const out: Record<string, unknown> = {};
  if (d.url.trim() !== '') out.url = d.url.trim();
  const templates = d.templates
    .filter((t) => t.url.trim() !== '')
    .map((t) => {
      const own = mapping(`The status mapping of the ${t.event} template`, t.status_mapping);
      return { event: t.event, url: t.url.trim(), ...(Object.keys(own).length > 0 && { status_mapping: own }) };
    });
  if (templates.length > 0) out.templates = templates;
  if (d.events.length > 0) out.events = d.events;
  const statusMapping = mapping('Postback status mapping', d.status_mapping);
  if (Object.keys(statusMapping).length > 0) out.status_mapping = statusMapping;
  if (d.sign) out.sign = true;
  if (d.token !== '') out.token = d.token;
  return Object.keys(out).length > 0 ? out : null;
}

// A mapping as typed, or undefined while it is not valid JSON (the preview then uses the saved one).
function typedMapping(text: string): Record<string, string> | undefined {
  try {
    return mapping('', text);
  } catch {
    return undefined;
  }
}

// What {status} becomes in a preview: the template's own mapping, else the postbacks', else the callbacks'.
export function previewMapping(
  own: string,
  shared: string,
  callbacks: Record<string, string> | undefined,
): Record<string, string> | undefined {
  const mine = typedMapping(own);
  const postbacks = typedMapping(shared);
  if (mine === undefined || postbacks === undefined) return undefined;
  if (Object.keys(mine).length > 0) return mine;
  return Object.keys(postbacks).length > 0 ? postbacks : (callbacks ?? {});
}
