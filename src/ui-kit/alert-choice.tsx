import { useState } from 'preact/hooks';
import type { Api } from './api';
import { ErrorNote, Notice, useAction, useLoad } from './ui';

interface AlertChoice {
  kinds: string[];
  available: string[];
}

// What each alert is called on the page (the API's kinds, in its order).
const LABELS: Readonly<Record<string, string>> = {
  endpoint_paused: 'Endpoint paused',
  endpoint_resumed: 'Endpoint resumed',
  circuit_opened: 'Endpoint failing',
  circuit_closed: 'Endpoint answers again',
  deliveries_dead: 'Deliveries given up (one digest per period)',
  cap_warning: 'Cap nearly reached',
  cap_reached: 'Cap reached',
  secret_grace_ending: 'Key rotation ending',
  daily_summary: 'Daily summary',
};

// The signed-in person's choice of the alerts mailed to them, on Your account, in the console
// (`base` /api: about the partners they look after) and the portal (/portal/api: their partner).
export function AlertChoiceForm({ api, base, about }: { api: Api; base: '/api' | '/portal/api'; about: string }) {
  const loaded = useLoad(() => api.get<AlertChoice>(`${base}/me/alerts`), []);
  // The person's edits, else what is stored: the boxes show the stored choice from their first render.
  const [edited, setEdited] = useState<string[] | null>(null);
  const kinds = edited ?? loaded.data?.kinds ?? [];
  const [saved, setSaved] = useState(false);
  const save = useAction(async () => {
    setSaved(false);
    setEdited((await api.put<AlertChoice>(`${base}/me/alerts`, { kinds })).kinds);
    setSaved(true);
  });
  const toggle = (kind: string) => (e: Event) => {
    setSaved(false);
    setEdited((e.target as HTMLInputElement).checked ? [...kinds, kind] : kinds.filter((k) => k !== kind));
  };

  return (
    <section class="panel" aria-labelledby="alerts-title">
      <h2 id="alerts-title">Alerts</h2>
      <ErrorNote error={loaded.error} />
      {loaded.data && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void save.act();
          }}
        >
          <fieldset>
            <legend>Mail me about {about} when</legend>
            {loaded.data.available.map((kind) => (
              <label key={kind} class="check">
                <input type="checkbox" name={kind} checked={kinds.includes(kind)} onChange={toggle(kind)} />
                {LABELS[kind] ?? kind}
              </label>
            ))}
          </fieldset>
          <button type="submit" disabled={save.busy}>
            Save alerts
          </button>
        </form>
      )}
      <ErrorNote error={save.error} />
      {saved && <Notice>Alerts saved.</Notice>}
    </section>
  );
}
