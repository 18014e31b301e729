import { wallClockInstant } from '../shared/local-time';

// A list's time range as two datetime-local inputs read in a zone: UTC, the zone every time on the
// console is shown in, or a portal person's own; the URL keeps what was typed, the API gets an instant.
export function TimeRange({
  idPrefix,
  from,
  to,
  onFrom,
  onTo,
  zone = 'UTC',
}: {
  idPrefix: string;
  from: string;
  to: string;
  onFrom: (e: Event) => void;
  onTo: (e: Event) => void;
  zone?: string;
}) {
  return (
    <>
      <div class="field">
        <label for={`${idPrefix}-from`}>From ({zone})</label>
        <input id={`${idPrefix}-from`} type="datetime-local" step={1} value={from} onInput={onFrom} />
      </div>
      <div class="field">
        <label for={`${idPrefix}-to`}>To ({zone})</label>
        <input id={`${idPrefix}-to`} type="datetime-local" step={1} value={to} onInput={onTo} />
      </div>
    </>
  );
}

// "2026-11-24T09:30" (or with seconds) as the API's date-time; anything else is left out.
export function utcInstant(local: string): string | undefined {
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(local)) return `${local}:00Z`;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$/.test(local)) return `${local}Z`;
  return undefined;
}

// The same typed in a zone, as the API's date-time (UTC); anything else is left out.
export function zonedInstant(local: string, zone: string): string | undefined {
  return zone === 'UTC' ? utcInstant(local) : wallClockInstant(local, zone)?.toISOString();
}
