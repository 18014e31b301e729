import { useState } from 'preact/hooks';
import type { Api } from '../../../ui-kit/api';
import { ErrorNote, useAction } from '../../../ui-kit/ui';
import { EVENTS, type Partner } from '../partner-settings-form';
import { EventField } from './event-field';
import { postbacksOf, previewMapping, type EventName } from './postback-draft';
import { PostbackPreview } from './postback-preview';
import { TemplateFields } from './template-fields';
import { usePostbackDraft } from './use-postback-draft';

// The postback settings as a form: the URL template for every event, own templates per event (each
// with a live preview), the events, the status mapping, the write-only token and signing.
export function PostbackForm({
  api,
  partner,
  onSubmit,
}: {
  api: Api;
  partner: Partner;
  onSubmit: (postbacks: Record<string, unknown> | null) => Promise<void>;
}) {
  const { draft, set, setTemplate, addTemplate, removeTemplate, toggleEvent } = usePostbackDraft(partner.postbacks);
  const [previewEvent, setPreviewEvent] = useState<EventName>('lead.accepted');
  const save = useAction(() => onSubmit(postbacksOf(draft)));
  const path = `/api/affiliates/${encodeURIComponent(partner.id)}`;
  const mappingFor = (own: string) => previewMapping(own, draft.status_mapping, partner.status_mapping);

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
      <EventField id="pb-preview-event" label="Preview for event" value={previewEvent} onPick={setPreviewEvent} />
      <PostbackPreview
        id="pb-url-preview"
        api={api}
        path={path}
        template={draft.url}
        event={previewEvent}
        statusMapping={mappingFor('')}
      />

      {draft.templates.map((t, i) => (
        <TemplateFields
          key={t.key}
          api={api}
          path={path}
          template={t}
          index={i}
          statusMapping={mappingFor(t.status_mapping)}
          edit={(field) => setTemplate(t.key, field)}
          onRemove={() => removeTemplate(t.key)}
        />
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
