import { daysBetween } from './report-format';
import type { ReportRow } from './report-types';

// Received per day, stacked by what became of it (accepted, rejected, duplicate, validation error):
// one bar per day of the range, days without leads included. SVG coloured by CSS classes; the
// figures are in the image's label and in the legend.
const PARTS = [
  ['accepted', 'accepted', 'c0'],
  ['rejected', 'rejected', 'c2'],
  ['duplicates', 'duplicates', 'c3'],
  ['validation_errors', 'validation errors', 'c6'],
] as const;
const WIDTH = 600;
const HEIGHT = 160;

// The fields a day's bar reads: a report row of the console's reports, a day of the portal's overview.
type DayRow = Pick<
  ReportRow,
  'day' | 'received' | 'accepted' | 'rejected' | 'duplicates' | 'validation_errors' | 'ftd'
>;

export function DayTrend({ from, to, rows }: { from: string; to: string; rows: DayRow[] }) {
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const days = daysBetween(from, to).map((day) => ({ day, row: byDay.get(day) }));
  const max = Math.max(1, ...days.map((d) => d.row?.received ?? 0));
  const slot = WIDTH / Math.max(1, days.length);
  const summary = days
    .map(
      ({ day, row }) => `${day}: received ${row?.received ?? 0}, accepted ${row?.accepted ?? 0}, FTD ${row?.ftd ?? 0}`,
    )
    .join('; ');
  return (
    <figure class="chart">
      <figcaption>
        <strong>Per day</strong>{' '}
        <span class="muted">
          received, by outcome ({from} to {to})
        </span>
      </figcaption>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={`Leads per day: ${summary}`}
        preserveAspectRatio="none"
      >
        <line class="axis" x1="0" y1={HEIGHT - 0.5} x2={WIDTH} y2={HEIGHT - 0.5} />
        {days.map(({ day, row }, i) => {
          let y = HEIGHT;
          return PARTS.map(([field, , colour]) => {
            const h = ((row?.[field] ?? 0) / max) * (HEIGHT - 10);
            y -= h;
            return h > 0 ? (
              <rect
                key={`${day}-${field}`}
                class={colour}
                x={i * slot + slot * 0.1}
                y={y}
                width={slot * 0.8}
                height={h}
              />
            ) : null;
          });
        })}
      </svg>
      <ul class="legend">
        {PARTS.map(([field, label, colour]) => (
          <li key={field}>
            <span class={`swatch ${colour}`} aria-hidden="true" />
            {label}: {rows.reduce((n, r) => n + r[field], 0)}
          </li>
        ))}
      </ul>
    </figure>
  );
}
