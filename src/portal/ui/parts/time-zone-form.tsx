import { useState } from 'preact/hooks';
import type { Api } from '../../../ui-kit/api';
import { ErrorNote, Notice, useAction, useLoad } from '../../../ui-kit/ui';
import type { OwnAccount } from '../types.generated';
import { useZone } from '../zone';

const ZONES: readonly string[] = ['UTC', ...Intl.supportedValuesOf('timeZone')];

// The person's own time zone: the overview's today, the ranges typed, every time shown, the CSV's
// times, the day of their daily summary.
export function TimeZoneForm({ api }: { api: Api }) {
  const { zone, reload } = useZone();
  const me = useLoad(() => api.get<OwnAccount>('/portal/api/me'), []);
  const [chosen, setChosen] = useState<string | null>(null); // '' is the partner's
  const [notice, setNotice] = useState<string | null>(null);
  const own = chosen ?? me.data?.account.time_zone ?? '';
  const save = useAction(async () => {
    setNotice(null);
    const answer = await api.patch<OwnAccount>('/portal/api/me', { time_zone: own || null });
    setNotice(`Times are now shown in ${answer.time_zone}.`);
    reload();
  });
  return (
    <section class="panel" aria-labelledby="zone-title">
      <h2 id="zone-title">Time zone</h2>
      <p class="muted">
        Now {zone}: the overview's days end at today there; the ranges you type, the times shown, the CSV's times and
        the day of your daily summary are in it.
      </p>
      {notice && <Notice>{notice}</Notice>}
      <form
        class="filters"
        aria-label="Time zone"
        onSubmit={(e) => {
          e.preventDefault();
          void save.act();
        }}
      >
        <div class="field">
          <label for="tz">Your time zone</label>
          <select id="tz" value={own} onChange={(e) => setChosen((e.target as HTMLSelectElement).value)}>
            <option value="">Your partner's</option>
            {ZONES.map((z) => (
              <option key={z} value={z}>
                {z}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" disabled={save.busy || !me.data}>
          Save
        </button>
      </form>
      <ErrorNote error={me.error ?? save.error} />
    </section>
  );
}
