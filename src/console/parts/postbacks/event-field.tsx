import { EVENTS } from '../partner-settings-form';
import type { EventName } from './postback-draft';

// The options of an event select: one per callback event.
export function EventOptions() {
  return (
    <>
      {EVENTS.map((ev) => (
        <option key={ev} value={ev}>
          {ev}
        </option>
      ))}
    </>
  );
}

// A labelled select of one event.
export function EventField({
  id,
  label,
  value,
  onPick,
}: {
  id: string;
  label: string;
  value: EventName;
  onPick: (event: EventName) => void;
}) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onPick((e.target as HTMLSelectElement).value as EventName)}>
        <EventOptions />
      </select>
    </div>
  );
}
