import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../../ui-kit/api';
import { EVENTS, mapping, type Partner, type Postbacks } from './partner-settings-form';
import { TestResultNote, type TestResult } from '../../ui-kit/test-result';
import { ErrorNote, errorText, Notice, useAction } from '../../ui-kit/ui';

type EventName = (typeof EVENTS)[number];

// Whether any event of the partner gets a postback: a template for every event, or one of its own.
export const hasPostbacks = (p: Partial<Partner>): boolean =>
  Boolean(p.postbacks?.url || (p.postbacks?.templates ?? []).length > 0);

// The postback settings, a live preview of each template, the write-only token and a test postback.
export function PostbacksPanel({ api, partner, onChange }: { api: Api; partner: Partner; onChange: () => void }) {
  const path = `/api/affiliates/${encodeURIComponent(partner.id)}`;
  const [saved, setSaved] = useState<string | null>(null);
  const [testEvent, setTestEvent] = useState<EventName>('lead.accepted');
  const [test, setTest] = useState<TestResult | null>(null);
  const save = async (postbacks: Record<string, unknown> | null) => {
    setSaved(null);
    await api.patch(path, { postbacks });
    setSaved(postbacks ? 'Postbacks saved.' : 'Postbacks turned off.');
    onChange();
  };
  // A change replaces postbacks whole, so the saved ones go back with the token removed.
  const clearToken = useAction(async () => {
    setSaved(null);
    await api.patch(path, { postbacks: { ...(partner.postbacks ?? {}), token: null } });
    setSaved('Postback token cleared.');
    onChange();
  });
  const sendTest = useAction(async () => {
    setTest(null);
    setTest(await api.post<TestResult>(`${path}/test-postback`, { event: testEvent }));
  });
  const on = hasPostbacks(partner);

  return (
    <section class="panel" aria-labelledby="postbacks-title">
      <h2 id="postbacks-title">Postbacks</h2>
      <p class="muted">
        GET requests to the partner's tracker, filled from URL templates with macros such as {'{click_id}'},{' '}
        {'{status}'} and {'{event_id}'}; never money or personal data.
      </p>
      <p>
        <span id="pb-token-state">
          <strong>{partner.postback_token_set ? 'Token set' : 'No token'}</strong>
        </span>
        {partner.postback_token_set && (
          <>
            {' '}
            <button type="button" class="secondary" disabled={clearToken.busy} onClick={() => void clearToken.act()}>
              Clear the token
            </button>
          </>
        )}
      </p>
      <ErrorNote error={clearToken.error} />
      <PostbackForm key={partner.updated_at} api={api} partner={partner} onSubmit={save} />
      {saved && <Notice>{saved}</Notice>}

      <h3>Test postback</h3>
      <div class="filters">
        <div class="field">
          <label for="pb-test-event">Event of the test postback</label>
          <select
            id="pb-test-event"
            value={testEvent}
            onChange={(e) => setTestEvent((e.target as HTMLSelectElement).value as EventName)}
          >
            {EVENTS.map((ev) => (
              <option key={ev} value={ev}>
                {ev}
              </option>
            ))}
          </select>
        </div>
        <button type="button" disabled={sendTest.busy || !on} onClick={() => void sendTest.act()}>
          Send a test postback
        </button>
      </div>
      {!on && <p class="muted">No postback template saved: save one above to send a test postback.</p>}
      <ErrorNote error={sendTest.error} />
      {test && <TestResultNote test={test} />}
    </section>
  );
}

// The form's text as a person edits it; each own template has a key of its own for its labels.
interface TemplateDraft {
  key: number;
  event: EventName;
  url: string;
  status_mapping: string;
}
interface Draft {
  url: string;
  templates: TemplateDraft[];
  events: EventName[];
  status_mapping: string;
  sign: boolean;
  token: string;
}

const json = (v: Record<string, string> | undefined) =>
  v && Object.keys(v).length > 0 ? JSON.stringify(v, null, 1) : '';

function draftOf(p: Postbacks | null | undefined): Draft {
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
function postbacksOf(d: Draft): Record<string, unknown> | null {
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

function PostbackForm({
  api,
  partner,
  onSubmit,
}: {
  api: Api;
  partner: Partner;
  onSubmit: (postbacks: Record<string, unknown> | null) => Promise<void>;
}) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(partner.postbacks));
  const [nextKey, setNextKey] = useState(draft.templates.length);
  const [previewEvent, setPreviewEvent] = useState<EventName>('lead.accepted');
  const save = useAction(() => onSubmit(postbacksOf(draft)));
  const path = `/api/affiliates/${encodeURIComponent(partner.id)}`;

  const set = (field: 'url' | 'status_mapping' | 'token' | 'sign') => (e: Event) => {
    const el = e.target as HTMLInputElement;
    setDraft({ ...draft, [field]: el.type === 'checkbox' ? el.checked : el.value });
  };
  const setTemplate = (key: number, field: 'event' | 'url' | 'status_mapping') => (e: Event) => {
    const value = (e.target as HTMLInputElement).value;
    setDraft({ ...draft, templates: draft.templates.map((t) => (t.key === key ? { ...t, [field]: value } : t)) });
  };
  const addTemplate = () => {
    const free = EVENTS.find((ev) => !draft.templates.some((t) => t.event === ev)) ?? 'lead.accepted';
    setDraft({ ...draft, templates: [...draft.templates, { key: nextKey, event: free, url: '', status_mapping: '' }] });
    setNextKey(nextKey + 1);
  };
  const removeTemplate = (key: number) =>
    setDraft({ ...draft, templates: draft.templates.filter((t) => t.key !== key) });
  const toggleEvent = (event: EventName) => (e: Event) => {
    const on = (e.target as HTMLInputElement).checked;
    setDraft({ ...draft, events: on ? [...draft.events, event] : draft.events.filter((x) => x !== event) });
  };
  // What {status} becomes in a preview: the template's own mapping, else the postbacks', else the callbacks'.
  const previewMapping = (own: string): Record<string, string> | undefined => {
    const mine = typedMapping(own);
    const shared = typedMapping(draft.status_mapping);
    if (mine === undefined || shared === undefined) return undefined;
    if (Object.keys(mine).length > 0) return mine;
    return Object.keys(shared).length > 0 ? shared : (partner.status_mapping ?? {});
  };

  const submit = (e: Event) => {
    e.preventDefault();
    void save.act();
  };

  return (
    <form class="settings" onSubmit={submit}>
      <div class="field">
        <label for="pb-url">Postback URL template</label>
        <input
          id="pb-url"
          type="text"
          class="mono"
          value={draft.url}
          onInput={set('url')}
          placeholder="https://tracker.example.com/postback?subid={click_id}&status={status}"
          aria-describedby="pb-url-hint pb-url-preview"
          autocomplete="off"
          spellcheck={false}
        />
        <small id="pb-url-hint">For every event without a template of its own; empty: none.</small>
      </div>
      <div class="field">
        <label for="pb-preview-event">Preview for event</label>
        <select
          id="pb-preview-event"
          value={previewEvent}
          onChange={(e) => setPreviewEvent((e.target as HTMLSelectElement).value as EventName)}
        >
          {EVENTS.map((ev) => (
            <option key={ev} value={ev}>
              {ev}
            </option>
          ))}
        </select>
      </div>
      <Preview
        id="pb-url-preview"
        api={api}
        path={path}
        template={draft.url}
        event={previewEvent}
        statusMapping={previewMapping('')}
      />

      {draft.templates.map((t, i) => (
        <fieldset key={t.key}>
          <legend>
            Own template {i + 1}: {t.event}
          </legend>
          <div class="field">
            <label for={`pb-t${t.key}-event`}>Event</label>
            <select id={`pb-t${t.key}-event`} value={t.event} onChange={setTemplate(t.key, 'event')}>
              {EVENTS.map((ev) => (
                <option key={ev} value={ev}>
                  {ev}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for={`pb-t${t.key}-url`}>URL template for {t.event}</label>
            <input
              id={`pb-t${t.key}-url`}
              type="text"
              class="mono"
              value={t.url}
              onInput={setTemplate(t.key, 'url')}
              aria-describedby={`pb-t${t.key}-preview`}
              autocomplete="off"
              spellcheck={false}
            />
          </div>
          <Preview
            id={`pb-t${t.key}-preview`}
            api={api}
            path={path}
            template={t.url}
            event={t.event}
            statusMapping={previewMapping(t.status_mapping)}
          />
          <div class="field">
            <label for={`pb-t${t.key}-mapping`}>Status mapping for {t.event} (JSON, optional)</label>
            <textarea
              id={`pb-t${t.key}-mapping`}
              rows={2}
              value={t.status_mapping}
              onInput={setTemplate(t.key, 'status_mapping')}
            />
          </div>
          <button type="button" class="secondary" onClick={() => removeTemplate(t.key)}>
            Remove the {t.event} template
          </button>
        </fieldset>
      ))}
      <div class="actions">
        <button
          type="button"
          class="secondary"
          disabled={draft.templates.length >= EVENTS.length}
          onClick={addTemplate}
        >
          Add a template for one event
        </button>
      </div>

      <fieldset>
        <legend>Postback events (none ticked: every event with a template)</legend>
        {EVENTS.map((ev) => (
          <label key={ev} class="check">
            <input type="checkbox" checked={draft.events.includes(ev)} onChange={toggleEvent(ev)} /> {ev}
          </label>
        ))}
      </fieldset>
      <div class="field">
        <label for="pb-status_mapping">Postback status mapping (JSON)</label>
        <textarea
          id="pb-status_mapping"
          rows={3}
          value={draft.status_mapping}
          onInput={set('status_mapping')}
          aria-describedby="pb-status_mapping-hint"
        />
        <small id="pb-status_mapping-hint">
          What {'{status}'} becomes, e.g. {'{"new": "lead", "ftd": "sale"}'}; empty: the callback status mapping.
        </small>
      </div>
      <div class="field">
        <label for="pb-token">Postback token</label>
        <input
          id="pb-token"
          type="password"
          value={draft.token}
          onInput={set('token')}
          autocomplete="new-password"
          spellcheck={false}
          aria-describedby="pb-token-hint"
        />
        <small id="pb-token-hint">
          Write-only:{' '}
          {partner.postback_token_set
            ? 'a token is set; type a new one to replace it, or leave empty to keep it.'
            : 'no token is set.'}{' '}
          Fills {'{token}'} and keys the signature; 8 to 256 printable characters, no spaces.
        </small>
      </div>
      <label class="check">
        <input type="checkbox" checked={draft.sign} onChange={set('sign')} /> Sign each postback (X-Postback-Signature;
        needs a token)
      </label>
      <p class="muted small">
        A save replaces the postbacks whole (the token stays unless a new one is typed); everything empty turns
        postbacks off.
      </p>
      <ErrorNote error={save.error} />
      <button type="submit" disabled={save.busy}>
        {save.busy ? 'Saving…' : 'Save postbacks'}
      </button>
    </form>
  );
}

type Previewed = { url: string } | { error: unknown } | null;

// The URL a template gives for the sample lead, asked for 300 ms after the last keystroke; a stale
// answer never overwrites a newer one. The server's refusal (naming the macro) is shown as it is.
function Preview({
  id,
  api,
  path,
  template,
  event,
  statusMapping,
}: {
  id: string;
  api: Api;
  path: string;
  template: string;
  event: EventName;
  statusMapping: Record<string, string> | undefined;
}) {
  const [previewed, setPreviewed] = useState<Previewed>(null);
  const mappingKey = JSON.stringify(statusMapping ?? null);
  useEffect(() => {
    const typed = template.trim();
    if (typed === '') {
      setPreviewed(null);
      return;
    }
    let current = true;
    const timer = setTimeout(() => {
      api
        .post<{ url: string }>(`${path}/postback-preview`, {
          template: typed,
          event,
          ...(statusMapping && { status_mapping: statusMapping }),
        })
        .then(
          (answer) => current && setPreviewed({ url: answer.url }),
          (error: unknown) => current && setPreviewed({ error }),
        );
    }, 300);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [template, event, mappingKey]);
  return (
    <div id={id} class="preview" role="status">
      {previewed &&
        ('url' in previewed ? (
          <p>
            <span class="muted">Preview ({event}, sample lead le-0): </span>
            <span class="mono wrap">{previewed.url}</span>
          </p>
        ) : (
          <p class="error">Preview refused: {errorText(previewed.error)}</p>
        ))}
    </div>
  );
}
