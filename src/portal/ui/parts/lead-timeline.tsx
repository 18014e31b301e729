import type { Api } from '../../../ui-kit/api';
import { href } from '../../../ui-kit/router';
import { ErrorNote, PageHeading, ScrollTable, useLoad, whenIn } from '../../../ui-kit/ui';
import type { PortalLeadDetails } from '../types.generated';
import { useZone } from '../zone';

// The routing fields shown above under their own names.
const SHOWN = new Set(['country', 'country_code', 'source']);

// One lead, the routing fields the partner sent, and the events it was told of, oldest first; times
// in the person's zone.
export function LeadTimeline({ api, id, back }: { api: Api; id: string; back: string }) {
  const { zone } = useZone();
  const lead = useLoad(() => api.get<PortalLeadDetails>(`/portal/api/leads/${encodeURIComponent(id)}`), [id]);
  const l = lead.data;
  return (
    <section>
      <PageHeading>Lead {id}</PageHeading>
      <p>
        <a href={back}>All leads</a>
      </p>
      <ErrorNote error={lead.error} />
      {l && (
        <>
          <dl class="facts">
            <dt>External id</dt>
            <dd class="mono wrap">{l.external_id}</dd>
            <dt>Status</dt>
            <dd>
              <strong>{l.status}</strong>
              {l.reason ? ` (${l.reason})` : ''}
            </dd>
            <dt>Phone</dt>
            <dd class="mono">{l.phone ?? '—'}</dd>
            <dt>Country</dt>
            <dd>{l.country ?? '—'}</dd>
            <dt>Source</dt>
            <dd class="wrap">{l.source ?? '—'}</dd>
            <dt>Received</dt>
            <dd>
              {whenIn(l.created_at, zone)} {zone}
            </dd>
            {Object.entries(l.details)
              .filter(([k]) => !SHOWN.has(k))
              .map(([k, v]) => [
                <dt key={`t${k}`}>{k}</dt>,
                <dd key={`d${k}`} class="wrap">
                  {v}
                </dd>,
              ])}
          </dl>
          {l.personal_data === 'erased' && <p class="muted">The personal data of this lead is erased.</p>}
          <h2>Timeline</h2>
          <ScrollTable label="Timeline">
            <thead>
              <tr>
                <th scope="col">At ({zone})</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Reason</th>
                <th scope="col">Sent as</th>
              </tr>
            </thead>
            <tbody>
              {l.timeline.map((t) => (
                <tr key={t.event_id}>
                  <td>{whenIn(t.at, zone)}</td>
                  <td>{t.event}</td>
                  <td>{t.status}</td>
                  <td>{t.reason ?? '—'}</td>
                  <td>
                    {t.deliveries.map((d) => (
                      <span key={d.id} class="nowrap">
                        <a href={href('deliveries', { kind: d.kind })}>{d.kind}</a>{' '}
                        <span class={`state ${d.state}`}>{d.state}</span>{' '}
                      </span>
                    ))}
                  </td>
                </tr>
              ))}
              {l.timeline.length === 0 && (
                <tr>
                  <td colSpan={5}>Nothing sent to you about this lead yet.</td>
                </tr>
              )}
            </tbody>
          </ScrollTable>
        </>
      )}
    </section>
  );
}
