// A stacked bar per minute, one colour per outcome, drawn as SVG (no inline styles: colours are CSS
// classes, so the strict Content-Security-Policy holds). The numbers are also in a table for screen
// readers and keyboard users.
export interface Minute {
  start: string;
  end: string;
  counts: Record<string, number>;
}

const WIDTH = 600;
const HEIGHT = 160;
const SLOTS = 60;

export function BarChart({ title, minutes }: { title: string; minutes: Minute[] }) {
  const outcomes = [...new Set(minutes.flatMap((m) => Object.keys(m.counts)))].sort();
  const totals = minutes.map((m) => Object.values(m.counts).reduce((a, b) => a + b, 0));
  const max = Math.max(1, ...totals);
  const sum = totals.reduce((a, b) => a + b, 0);
  const slot = WIDTH / SLOTS;
  const shown = minutes.slice(-SLOTS);
  const first = SLOTS - shown.length;
  const byOutcome = outcomes.map((o) => [o, shown.reduce((a, m) => a + (m.counts[o] ?? 0), 0)] as const);
  const summary = sum === 0 ? 'nothing in the last hour' : byOutcome.map(([o, n]) => `${o} ${n}`).join(', ');

  return (
    <figure class="chart">
      <figcaption>
        <strong>{title}</strong> <span class="muted">per minute, last hour: {sum} in all</span>
      </figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={`${title}: ${summary}`} preserveAspectRatio="none">
        <line class="axis" x1="0" y1={HEIGHT - 0.5} x2={WIDTH} y2={HEIGHT - 0.5} />
        {shown.map((m, i) => {
          let y = HEIGHT;
          return outcomes.map((o, k) => {
            const h = ((m.counts[o] ?? 0) / max) * (HEIGHT - 10);
            y -= h;
            return h > 0 ? (
              <rect
                key={`${i}-${o}`}
                class={`c${k % 8}`}
                x={(first + i) * slot + 1}
                y={y}
                width={slot - 2}
                height={h}
              />
            ) : null;
          });
        })}
      </svg>
      <ul class="legend">
        {byOutcome.map(([o, n], k) => (
          <li key={o}>
            <span class={`swatch c${k % 8}`} aria-hidden="true" />
            {o}: {n}
          </li>
        ))}
        {outcomes.length === 0 && <li class="muted">No counts yet in this process.</li>}
      </ul>
    </figure>
  );
}
