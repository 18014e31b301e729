import { useState } from 'preact/hooks';
import type { Api } from '../../../ui-kit/api';
import { ErrorNote, Notice, useAction } from '../../../ui-kit/ui';
import { EVENTS } from '../../../ui-kit/vocabulary.generated';
import type { Integration } from '../types.generated';

// Where our callbacks go and which events they carry; a change is audited and the partner's manager sees it.
export function CallbackSettings({
  api,
  integration,
  onSaved,
}: {
  api: Api;
  integration: Integration;
  onSaved: () => void;
}) {
  const [url, setUrl] = useState(integration.callback_url ?? '');
  const [events, setEvents] = useState<Integration['callback_events']>(integration.callback_events);
  const [saved, setSaved] = useState(false);
  // Only what changed is sent: a change is audited as what it changed.
  const save = useAction(async () => {
    setSaved(false);
    const newUrl = url.trim() || null;
    const sameEvents =
      events.length === integration.callback_events.length &&
      events.every((e) => integration.callback_events.includes(e));
    const change = {
      ...(newUrl !== integration.callback_url && { callback_url: newUrl }),
      ...(!sameEvents && { callback_events: events }),
    };
    if (Object.keys(change).length === 0) throw new Error('Nothing changed.');
    await api.patch('/portal/api/integration', change);
    setSaved(true);
    onSaved();
  });
  const toggle = (ev: (typeof EVENTS)[number]) => (e: Event) =>
    setEvents((e.target as HTMLInputElement).checked ? [...events, ev] : events.filter((x) => x !== ev));

  return (
    <section class="panel" aria-labelledby="callback-settings-title">
      <h2 id="callback-settings-title">Callbacks</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save.act();
        }}
      >
        <div class="field">
          <label for="callback-url">Callback URL</label>
          <input
            id="callback-url"
            type="url"
            placeholder="https://…"
            value={url}
            onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
          />
        </div>
        <fieldset>
          <legend>Events (none ticked: every event)</legend>
          {EVENTS.map((ev) => (
            <label key={ev} class="check">
              <input type="checkbox" checked={events.includes(ev)} onChange={toggle(ev)} />
              {ev}
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={save.busy}>
          Save callback settings
        </button>
      </form>
      <ErrorNote error={save.error} />
      {saved && <Notice>Callback settings saved.</Notice>}
    </section>
  );
}
