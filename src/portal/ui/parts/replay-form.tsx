import { useState } from 'preact/hooks';
import type { Api } from '../../../ui-kit/api';
import { TimeRange, zonedInstant } from '../../../ui-kit/time-range';
import { ChoiceField, ErrorNote, useAction, whenIn } from '../../../ui-kit/ui';
import { EVENTS } from '../../../ui-kit/vocabulary.generated';
import type { ReplayJob } from '../types.generated';
import { useZone } from '../zone';

// Every callback and postback made in a time range sent again (a replay), for a partner who lost
// what it received; the job runs in the background and its progress is read on request. The range
// is typed and shown in the person's own time zone.
export function ReplayForm({ api }: { api: Api }) {
  const { zone } = useZone();
  const [range, setRange] = useState({ from: '', to: '', event: '' });
  const [job, setJob] = useState<ReplayJob | null>(null);
  const start = useAction(async () => {
    const from = zonedInstant(range.from, zone);
    const to = zonedInstant(range.to, zone);
    if (!from || !to) throw new Error('Give both ends of the range.');
    setJob(
      await api.post<ReplayJob>('/portal/api/replays', { from, to, ...(range.event ? { events: [range.event] } : {}) }),
    );
  });
  const check = useAction(async () => {
    if (job) setJob(await api.get<ReplayJob>(`/portal/api/replays/${encodeURIComponent(job.id)}`));
  });
  const set = (f: 'from' | 'to' | 'event') => (e: Event) =>
    setRange({ ...range, [f]: (e.target as HTMLInputElement).value });
  return (
    <section class="panel" aria-labelledby="replay-title">
      <h2 id="replay-title">Replay a time range</h2>
      <p class="muted">
        Sends again, in order and with the same event ids, what was made in the range (at most 7 days).
      </p>
      <form
        class="filters"
        aria-label="Replay"
        onSubmit={(e) => {
          e.preventDefault();
          void start.act();
        }}
      >
        <TimeRange idPrefix="r" from={range.from} to={range.to} onFrom={set('from')} onTo={set('to')} zone={zone} />
        <ChoiceField id="r-event" label="Only the event" value={range.event} choices={EVENTS} onChange={set('event')} />
        <button type="submit" disabled={start.busy}>
          Replay
        </button>
      </form>
      <ErrorNote error={start.error ?? check.error} />
      {job && (
        <div role="status">
          <p>
            Replay <span class="mono">{job.id}</span> ({whenIn(job.from, zone)} to {whenIn(job.to, zone)} {zone}):{' '}
            <strong>{job.state}</strong>, {job.sent} of {job.found} sent{job.error ? ` (${job.error})` : ''}.
          </p>
          <button type="button" class="secondary" disabled={check.busy} onClick={() => void check.act()}>
            Check progress
          </button>
        </div>
      )}
    </section>
  );
}
