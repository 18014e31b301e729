import { useState } from 'preact/hooks';
import { go } from '../../../ui-kit/router';

// The overview's own days: a first and a last day (at most 366 in all; the server checks).
export function DayRange({ from, to }: { from: string; to: string }) {
  const [draft, setDraft] = useState({ from, to });
  const set = (f: 'from' | 'to') => (e: Event) => setDraft({ ...draft, [f]: (e.target as HTMLInputElement).value });
  return (
    <form
      class="filters"
      aria-label="Days"
      onSubmit={(e) => {
        e.preventDefault();
        go('overview', draft);
      }}
    >
      <div class="field">
        <label for="o-from">First day</label>
        <input id="o-from" type="date" value={draft.from} onInput={set('from')} required />
      </div>
      <div class="field">
        <label for="o-to">Last day</label>
        <input id="o-to" type="date" value={draft.to} onInput={set('to')} required />
      </div>
      <button type="submit" class="secondary">
        Show these days
      </button>
    </form>
  );
}
