import type { Api } from '../../../ui-kit/api';
import { ErrorNote, ScrollTable, useLoad } from '../../../ui-kit/ui';

interface CapUse {
  scope: 'partner_daily' | 'partner_hourly' | 'country_daily' | 'country_hourly';
  country: string | null;
  limit: number;
  used: number;
  left: number;
}

const PERIOD: Record<CapUse['scope'], string> = {
  partner_daily: 'today',
  partner_hourly: 'this hour',
  country_daily: 'today',
  country_hourly: 'this hour',
};

// The partner's caps now: each with what today or this hour (in the partner's time zone) used of
// it and what is left before a lead is rejected with cap_reached.
export function CapTable({ api }: { api: Api }) {
  const caps = useLoad(() => api.get<{ time_zone: string; caps: CapUse[] }>('/portal/api/caps'), []);
  const c = caps.data;
  return (
    <>
      <h2>Caps</h2>
      <ErrorNote error={caps.error} />
      {c && c.caps.length === 0 && <p class="muted">No caps: every lead that passes the checks is accepted.</p>}
      {c && c.caps.length > 0 && (
        <>
          <p class="muted">Days and hours in {c.time_zone}.</p>
          <ScrollTable label="Caps" cards>
            <thead>
              <tr>
                {['Cap', 'Limit', 'Used', 'Left'].map((h) => (
                  <th key={h} scope="col">
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {c.caps.map((u) => (
                <tr key={`${u.scope}-${u.country ?? ''}`}>
                  <td data-label="Cap">{`${u.country ?? 'All leads'}, ${PERIOD[u.scope]}`}</td>
                  <td data-label="Limit">{u.limit}</td>
                  <td data-label="Used">{u.used}</td>
                  <td data-label="Left" class={u.left === 0 ? 'error' : undefined}>
                    {u.left}
                  </td>
                </tr>
              ))}
            </tbody>
          </ScrollTable>
        </>
      )}
    </>
  );
}
