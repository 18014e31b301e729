import type { Api } from '../../../ui-kit/api';
import { EventOptions } from './event-field';
import type { TemplateDraft } from './postback-draft';
import { PostbackPreview } from './postback-preview';

// One own template of the postback form: its event, URL (with its preview) and status mapping.
export function TemplateFields({
  api,
  path,
  template: t,
  index,
  statusMapping,
  edit,
  onRemove,
}: {
  api: Api;
  path: string;
  template: TemplateDraft;
  index: number;
  statusMapping: Record<string, string> | undefined;
  edit: (field: 'event' | 'url' | 'status_mapping') => (e: Event) => void;
  onRemove: () => void;
}) {
  return (
    <fieldset>
      <legend>
        Own template {index + 1}: {t.event}
      </legend>
      <div class="field">
        <label for={`pb-t${t.key}-event`}>Event</label>
        <select id={`pb-t${t.key}-event`} value={t.event} onChange={edit('event')}>
          <EventOptions />
        </select>
      </div>
      <div class="field">
        <label for={`pb-t${t.key}-url`}>URL template for {t.event}</label>
        <input
          id={`pb-t${t.key}-url`}
          type="text"
          class="mono"
          value={t.url}
          onInput={edit('url')}
          aria-describedby={`pb-t${t.key}-preview`}
          autocomplete="off"
          spellcheck={false}
        />
      </div>
      <PostbackPreview
        id={`pb-t${t.key}-preview`}
        api={api}
        path={path}
        template={t.url}
        event={t.event}
        statusMapping={statusMapping}
      />
      <div class="field">
        <label for={`pb-t${t.key}-mapping`}>Status mapping for {t.event} (JSON, optional)</label>
        <textarea id={`pb-t${t.key}-mapping`} rows={2} value={t.status_mapping} onInput={edit('status_mapping')} />
      </div>
      <button type="button" class="secondary" onClick={onRemove}>
        Remove the {t.event} template
      </button>
    </fieldset>
  );
}
