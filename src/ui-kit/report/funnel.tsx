import { percent } from './report-format';
import type { Figures } from './report-types';

// Received → accepted → contacted → FTD, each bar as wide as its share of received. The bars are
// SVG drawn to a width attribute (no inline style under the Content-Security-Policy); the numbers
// are text beside them.
export function Funnel({ totals }: { totals: Figures }) {
  const steps = [
    { label: 'Received', n: totals.received, note: '' },
    { label: 'Accepted', n: totals.accepted, note: `${percent(totals.accepted_share)} of received` },
    { label: 'Contacted', n: totals.contacted, note: `${percent(totals.contact_rate)} of accepted` },
    { label: 'FTD', n: totals.ftd, note: `${percent(totals.ftd_conversion)} of accepted` },
  ];
  const widest = Math.max(1, totals.received);
  return (
    <figure class="chart funnel">
      <figcaption>
        <strong>Funnel</strong>
      </figcaption>
      <ol>
        {steps.map((s) => (
          <li key={s.label}>
            <span class="funnel-label">{s.label}</span>
            <svg class="funnel-bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">
              <rect class="c1" width={(s.n / widest) * 100} height="10" />
            </svg>
            <span class="funnel-n">
              <strong>{s.n}</strong>
              {s.note && <span class="muted"> {s.note}</span>}
            </span>
          </li>
        ))}
      </ol>
    </figure>
  );
}
