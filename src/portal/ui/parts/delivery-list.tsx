import { useState } from 'preact/hooks';
import type { Api } from '../../../ui-kit/api';
import { href } from '../../../ui-kit/router';
import { ErrorNote, Notice, ScrollTable, useAction, whenIn } from '../../../ui-kit/ui';
import { useCan } from '../session';
import type { PortalDelivery } from '../types.generated';
import { useZone } from '../zone';

// The partner's deliveries, each with its attempts one click away and, when dead, a retry.
export function DeliveryList({ api, items, onChange }: { api: Api; items: PortalDelivery[]; onChange: () => void }) {
  const { zone } = useZone();
  const [open, setOpen] = useState<string | null>(null);
  const [retried, setRetried] = useState<string | null>(null);
  return (
    <>
      {retried && <Notice>Delivery {retried} queued again for a fresh round of attempts.</Notice>}
      <ScrollTable label="Deliveries">
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Lead</th>
            <th scope="col">State</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last HTTP</th>
            <th scope="col">Updated ({zone})</th>
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {items.map((d) => (
            <DeliveryRows
              key={d.id}
              api={api}
              d={d}
              open={open === d.id}
              onToggle={() => setOpen(open === d.id ? null : d.id)}
              onRetried={() => {
                setRetried(d.id);
                onChange();
              }}
            />
          ))}
          {items.length === 0 && (
            <tr>
              <td colSpan={7}>No deliveries match.</td>
            </tr>
          )}
        </tbody>
      </ScrollTable>
    </>
  );
}

function DeliveryRows({
  api,
  d,
  open,
  onToggle,
  onRetried,
}: {
  api: Api;
  d: PortalDelivery;
  open: boolean;
  onToggle: () => void;
  onRetried: () => void;
}) {
  const can = useCan();
  const { zone } = useZone();
  const retry = useAction(async () => {
    await api.post(`/portal/api/deliveries/${encodeURIComponent(d.id)}/retry`);
    onRetried();
  });
  const detailsId = `attempts-${d.id}`;
  return (
    <>
      <tr>
        <td>
          {d.event} <span class={`tag ${d.kind}`}>{d.kind}</span>
        </td>
        <td class="mono">
          <a href={href(`leads/${d.lead_id}`)}>{d.lead_id}</a>
        </td>
        <td>
          <span class={`state ${d.state}`}>{d.state}</span>
        </td>
        <td>{d.attempts_made}</td>
        <td>{d.last_http_status ?? '—'}</td>
        <td>{whenIn(d.updated_at, zone)}</td>
        <td class="actions">
          <button
            type="button"
            aria-expanded={open}
            aria-controls={detailsId}
            aria-label={`Attempts of ${d.id}`}
            onClick={onToggle}
          >
            {open ? 'Hide attempts' : 'Attempts'}
          </button>
          {d.state === 'dead' && can('portal.act') && (
            <button type="button" aria-label={`Retry ${d.id}`} disabled={retry.busy} onClick={() => void retry.act()}>
              Retry
            </button>
          )}
        </td>
      </tr>
      {(open || retry.error) && (
        <tr id={detailsId} class="details">
          <td colSpan={7}>
            <ErrorNote error={retry.error} />
            {open && <Attempts d={d} />}
          </td>
        </tr>
      )}
    </>
  );
}

// A delivery's attempts as the API keeps them: the time, the HTTP code, a short excerpt of the answer,
// the duration (a postback's also the URL called, its token masked).
function Attempts({ d }: { d: PortalDelivery }) {
  const { zone } = useZone();
  const urls = d.attempts.some((a) => a.url !== undefined);
  return (
    <div>
      <p class="mono">
        {d.id} · {d.kind}
        {d.held_by ? ` · held (${d.held_by})` : ''}
        {d.next_attempt_at ? ` · next attempt ${whenIn(d.next_attempt_at, zone)} ${zone}` : ''}
      </p>
      <table class="inner">
        <caption>Attempts</caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">At ({zone})</th>
            <th scope="col">HTTP</th>
            <th scope="col">Duration</th>
            {urls && <th scope="col">URL</th>}
            <th scope="col">Answer</th>
          </tr>
        </thead>
        <tbody>
          {d.attempts.map((a) => (
            <tr key={a.attempt}>
              <td>{a.attempt}</td>
              <td>{whenIn(a.at, zone)}</td>
              <td>{a.http_status ?? a.error ?? '—'}</td>
              <td>{a.duration_ms} ms</td>
              {urls && <td class="mono wrap">{a.url ?? '—'}</td>}
              <td>
                <pre class="body">{a.excerpt || '(empty)'}</pre>
              </td>
            </tr>
          ))}
          {d.attempts.length === 0 && (
            <tr>
              <td colSpan={urls ? 6 : 5}>No attempt yet.</td>
            </tr>
          )}
        </tbody>
      </table>
      {d.retried_at.length > 0 && <p>Retried by hand: {d.retried_at.map((at) => whenIn(at, zone)).join('; ')}</p>}
    </div>
  );
}
