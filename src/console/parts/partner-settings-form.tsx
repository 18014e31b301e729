import { useState } from 'preact/hooks';
import type { PartnerSettings } from '../../shared/schemas/types.generated';
import { ErrorNote } from '../../ui-kit/ui';
import { EVENTS } from '../../ui-kit/vocabulary.generated';

export { EVENTS };

// A partner's postbacks as the API shows them (docs/partners/postbacks.md): the token is write-only
// and never in here (postback_token_set says whether there is one).
export type Postbacks = Omit<NonNullable<PartnerSettings['postbacks']>, 'token'>;

export interface Partner {
  id: string;
  name: string;
  callback_url: string | null;
  callback_events?: string[];
  status_mapping?: Record<string, string>;
  field_mapping?: Record<string, string>;
  rate_limits?: { intake_per_minute?: number; status_per_minute?: number };
  blocked_countries?: string[];
  blocked_sources?: string[];
  blocked_ip_ranges?: string[];
  dedup_scope?: 'global' | 'partner';
  dedup_window_days?: number;
  postbacks?: Postbacks | null;
  postback_token_set?: boolean; // the token itself is write-only
  disabled: boolean;
  created_at: string;
  updated_at: string;
  key_rotated_at: string | null;
}

type Settings = Record<string, unknown>;

// The form's text, one string per field, as a person edits it.
interface Draft {
  name: string;
  callback_url: string;
  callback_events: string[];
  disabled: boolean;
  dedup_scope: string;
  dedup_window_days: string;
  intake_per_minute: string;
  status_per_minute: string;
  blocked_countries: string;
  blocked_sources: string;
  blocked_ip_ranges: string;
  status_mapping: string;
  field_mapping: string;
}

function draftOf(p: Partial<Partner>): Draft {
  const json = (v: Record<string, string> | undefined) =>
    v && Object.keys(v).length > 0 ? JSON.stringify(v, null, 1) : '';
  return {
    name: p.name ?? '',
    callback_url: p.callback_url ?? '',
    callback_events: p.callback_events ?? [],
    disabled: p.disabled ?? false,
    dedup_scope: p.dedup_scope ?? 'global',
    dedup_window_days: String(p.dedup_window_days ?? ''),
    intake_per_minute: String(p.rate_limits?.intake_per_minute ?? ''),
    status_per_minute: String(p.rate_limits?.status_per_minute ?? ''),
    blocked_countries: (p.blocked_countries ?? []).join(', '),
    blocked_sources: (p.blocked_sources ?? []).join(', '),
    blocked_ip_ranges: (p.blocked_ip_ranges ?? []).join(', '),
    status_mapping: json(p.status_mapping),
    field_mapping: json(p.field_mapping),
  };
}

const list = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const int = (text: string) => (text.trim() === '' ? undefined : Number(text.trim()));

export function mapping(label: string, text: string): Record<string, string> {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as Record<string, string>;
  } catch {
    throw new Error(`${label} is not valid JSON: write an object such as {"contacted": "CALLED"}`);
  }
}

// The settings as the API takes them; the server checks every value and its message is shown as it is.
function settingsOf(d: Draft): Settings {
  const rate: Settings = {};
  if (int(d.intake_per_minute) !== undefined) rate.intake_per_minute = int(d.intake_per_minute);
  if (int(d.status_per_minute) !== undefined) rate.status_per_minute = int(d.status_per_minute);
  const s: Settings = {
    name: d.name.trim(),
    callback_url: d.callback_url.trim() === '' ? null : d.callback_url.trim(),
    callback_events: d.callback_events,
    disabled: d.disabled,
    dedup_scope: d.dedup_scope,
    rate_limits: rate,
    blocked_countries: list(d.blocked_countries),
    blocked_sources: list(d.blocked_sources),
    blocked_ip_ranges: list(d.blocked_ip_ranges),
    status_mapping: mapping('Status mapping', d.status_mapping),
    field_mapping: mapping('Field mapping', d.field_mapping),
  };
  if (int(d.dedup_window_days) !== undefined) s.dedup_window_days = int(d.dedup_window_days);
  return s;
}

// Only what changed goes in a PATCH (each field given replaces the stored one); a new partner gets
// every field that is set.
function changed(next: Settings, before: Settings | null): Settings {
  if (!before) return next;
  return Object.fromEntries(Object.entries(next).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(before[k])));
}

export function PartnerSettingsForm({
  partner,
  submitLabel,
  onSubmit,
}: {
  partner: Partial<Partner> | null;
  submitLabel: string;
  onSubmit: (settings: Settings) => Promise<void>;
}) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(partner ?? {}));
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const idp = partner?.id ?? 'new';
  const set = (field: keyof Draft) => (e: Event) => {
    const el = e.target as HTMLInputElement;
    setDraft({ ...draft, [field]: el.type === 'checkbox' ? el.checked : el.value });
  };
  const toggleEvent = (event: string) => (e: Event) => {
    const on = (e.target as HTMLInputElement).checked;
    setDraft({
      ...draft,
      callback_events: on ? [...draft.callback_events, event] : draft.callback_events.filter((x) => x !== event),
    });
  };
  const text = (field: keyof Draft, label: string, hint?: string, type: 'text' | 'url' | 'number' = 'text') => (
    <div class="field">
      <label for={`${idp}-${field}`}>{label}</label>
      <input
        id={`${idp}-${field}`}
        type={type as 'text'}
        value={draft[field] as string}
        onInput={set(field)}
        aria-describedby={hint ? `${idp}-${field}-hint` : undefined}
      />
      {hint && <small id={`${idp}-${field}-hint`}>{hint}</small>}
    </div>
  );

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const body = changed(settingsOf(draft), partner?.id ? settingsOf(draftOf(partner)) : null);
      if (partner?.id && Object.keys(body).length === 0) throw new Error('Nothing changed.');
      await onSubmit(body);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="settings" onSubmit={submit}>
      {text('name', 'Name')}
      {text('callback_url', 'Callback URL', 'Where callbacks go; leave empty for none.', 'url')}
      <fieldset>
        <legend>Callback events (none ticked: all)</legend>
        {EVENTS.map((ev) => (
          <label key={ev} class="check">
            <input type="checkbox" checked={draft.callback_events.includes(ev)} onChange={toggleEvent(ev)} /> {ev}
          </label>
        ))}
      </fieldset>
      <div class="grid">
        {text('intake_per_minute', 'Intake per minute', 'Empty: the service default.', 'number')}
        {text('status_per_minute', 'Status lookups per minute', undefined, 'number')}
        <div class="field">
          <label for={`${idp}-dedup_scope`}>Dedup scope</label>
          <select id={`${idp}-dedup_scope`} value={draft.dedup_scope} onChange={set('dedup_scope')}>
            <option value="global">global</option>
            <option value="partner">partner</option>
          </select>
        </div>
        {text('dedup_window_days', 'Dedup window (days)', undefined, 'number')}
      </div>
      {text('blocked_countries', 'Blocked countries', 'Two-letter codes, comma separated.')}
      {text('blocked_sources', 'Blocked sources', 'Comma separated.')}
      {text('blocked_ip_ranges', 'Blocked IP ranges', 'IPs or CIDR ranges, comma separated.')}
      <div class="field">
        <label for={`${idp}-status_mapping`}>Status mapping (JSON)</label>
        <textarea id={`${idp}-status_mapping`} rows={3} value={draft.status_mapping} onInput={set('status_mapping')} />
      </div>
      <div class="field">
        <label for={`${idp}-field_mapping`}>Field mapping (JSON)</label>
        <textarea id={`${idp}-field_mapping`} rows={3} value={draft.field_mapping} onInput={set('field_mapping')} />
      </div>
      <label class="check">
        <input type="checkbox" checked={draft.disabled} onChange={set('disabled')} /> Disabled (cannot send leads)
      </label>
      <ErrorNote error={error} />
      <button type="submit" disabled={busy}>
        {busy ? 'Saving…' : submitLabel}
      </button>
    </form>
  );
}
