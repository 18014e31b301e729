import { useState } from 'preact/hooks';
import type { Api } from '../../../ui-kit/api';
import { ErrorNote, useAction } from '../../../ui-kit/ui';

const LABELS: Record<string, string> = {
  contacted: 'Contacted',
  callback: 'Callback',
  interested: 'Interested',
  no_answer: 'No answer',
  wrong_number: 'Wrong number',
  trash: 'Trash',
};

// One click per outcome the lead's status allows; a callback first asks when (in the browser's time zone).
export function OutcomeButtons({
  api,
  id,
  outcomes,
  onRecorded,
}: {
  api: Api;
  id: string;
  outcomes: string[];
  onRecorded: (label: string) => void;
}) {
  const [asking, setAsking] = useState(false);
  const [at, setAt] = useState('');
  const record = useAction(async (outcome: string, callbackAt?: string) => {
    await api.post(`/api/workspace/leads/${encodeURIComponent(id)}/outcome`, {
      outcome,
      ...(callbackAt ? { callback_at: new Date(callbackAt).toISOString() } : {}),
    });
    setAsking(false);
    onRecorded(LABELS[outcome] ?? outcome);
  });
  if (outcomes.length === 0) return <p class="hint">No outcome can be recorded on this lead any more.</p>;
  return (
    <div>
      <div class="actions" role="group" aria-label="Outcome">
        {outcomes.map((o) => (
          <button
            key={o}
            type="button"
            disabled={record.busy}
            aria-expanded={o === 'callback' ? asking : undefined}
            onClick={() => (o === 'callback' ? setAsking(!asking) : void record.act(o))}
          >
            {LABELS[o] ?? o}
          </button>
        ))}
      </div>
      {asking && (
        <form
          class="filters"
          aria-label="Schedule a callback"
          onSubmit={(e) => {
            e.preventDefault();
            void record.act('callback', at);
          }}
        >
          <div class="field">
            <label for="callback-at">Call back at</label>
            <input
              id="callback-at"
              type="datetime-local"
              step="1"
              required
              value={at}
              onInput={(e) => setAt((e.target as HTMLInputElement).value)}
            />
          </div>
          <button type="submit" disabled={record.busy}>
            Schedule callback
          </button>
        </form>
      )}
      <ErrorNote error={record.error} />
    </div>
  );
}
