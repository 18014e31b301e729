import { whenIn } from './ui';

// A callback endpoint's (or postback tracker's) health as the manager and the portal answer it.
export interface Health {
  state: 'active' | 'paused';
  success_rate: number | null;
  consecutive_failures: number;
  last_success_at: string | null;
  last_failure_at: string | null;
  gone: boolean;
  held: number; // deliveries held while paused
}

// Its times in `zone`, named: the console's UTC, a portal person's own.
export function HealthFacts({ h, held, zone = 'UTC' }: { h: Health; held: string; zone?: string }) {
  const at = (t: string | null) => (t ? `${whenIn(t, zone)} ${zone}` : '—');
  const rate = h.success_rate === null ? '—' : `${Math.round(h.success_rate * 1000) / 10}%`;
  return (
    <dl class="facts">
      <dt>State</dt>
      <dd>
        <span class={`state ${h.state}`}>{h.state}</span>
        {h.gone ? ' (gone)' : ''}
        {h.held > 0 ? ` (${h.held} ${held})` : ''}
      </dd>
      <dt>Success rate</dt>
      <dd>{rate}</dd>
      <dt>Failures in a row</dt>
      <dd>{h.consecutive_failures}</dd>
      <dt>Last success</dt>
      <dd>{at(h.last_success_at)}</dd>
      <dt>Last failure</dt>
      <dd>{at(h.last_failure_at)}</dd>
    </dl>
  );
}
