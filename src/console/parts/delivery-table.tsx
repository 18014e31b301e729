import { useState } from 'preact/hooks';
import type { Api } from '../../ui-kit/api';
import { useCan } from '../session';
import { ErrorNote, Notice, ScrollTable, useAction, when } from '../../ui-kit/ui';

export interface Delivery {
  id: string;
  kind?: 'callback' | 'postback'; // absent from a service before postbacks: a callback
  event: string;
  event_id: string;
  affiliate_id: string;
  lead_id: string;
  state: 'queued' | 'delivered' | 'dead';
  attempts_made: number;
  attempts_left: number;
  next_attempt_at: string | null;
  last_http_status: number | null;
  last_response_body: string | null;
  last_error: string | null;
  attempts: {
    attempt: number;
    at: string;
    http_status: number | null;
    error: string | null;
    duration_ms: number;
    response_body?: string | null;
    url?: string;
  }[];
  manual_retries: { at: string; by: string }[];
  held_by?: string;
  created_at: string;
  updated_at: string;
}

// Deliveries with their attempts one click away, and a retry for a dead one.
export function DeliveryTable({
  api,
  label,
  items,
  onChange,
}: {
  api: Api;
  label: string;
  items: Delivery[];
  onChange: () => void;
}) {
  const [open, setOpen] = useState<string | null>(null);
  const [retried, setRetried] = useState<string | null>(null);
  const onRetried = (id: string) => {
    setRetried(id);
    onChange();
  };
  return (
    <>
      {retried && <Notice>Delivery {retried} queued again for a fresh round of attempts.</Notice>}
      <ScrollTable label={label}>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Lead</th>
            <th scope="col">Partner</th>
            <th scope="col">State</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last answer</th>
            <th scope="col">Updated</th>
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
              onRetried={onRetried}
            />
          ))}
          {items.length === 0 && (
            <tr>
              <td colSpan={8}>No deliveries match.</td>
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
  d: Delivery;
  open: boolean;
  onToggle: () => void;
  onRetried: (id: string) => void;
}) {
  const can = useCan();
  const retry = useAction(async () => {
    await api.post(`/api/deliveries/${encodeURIComponent(d.id)}/retry`);
    onRetried(d.id);
  });
  const detailsId = `attempts-${d.id}`;
  return (
    <>
      <tr>
        <td>
          {d.event} <span class={`tag ${d.kind ?? 'callback'}`}>{d.kind ?? 'callback'}</span>
        </td>
        <td class="mono">
          <a href={`#/leads?id=${encodeURIComponent(d.lead_id)}`}>{d.lead_id}</a>
        </td>
        <td class="mono">
          <a href={`#/partners/${encodeURIComponent(d.affiliate_id)}`}>{d.affiliate_id}</a>
        </td>
        <td>
          <span class={`state ${d.state}`}>{d.state}</span>
          {d.held_by ? ' (held)' : ''}
        </td>
        <td>
          {d.attempts_made} made, {d.attempts_left} left
        </td>
        <td>{d.last_http_status ?? d.last_error ?? '—'}</td>
        <td>{when(d.updated_at)}</td>
        <td class="actions">
          <button type="button" aria-expanded={open} aria-controls={detailsId} onClick={onToggle}>
            {open ? 'Hide attempts' : 'Attempts'}
          </button>
          {d.state === 'dead' && can('deliveries.retry') && (
            <button type="button" disabled={retry.busy} onClick={() => void retry.act()}>
              Retry
            </button>
          )}
        </td>
      </tr>
      {(open || retry.error) && (
        <tr id={detailsId} class="details">
          <td colSpan={8}>
            <ErrorNote error={retry.error} />
            {open && <Attempts d={d} />}
          </td>
        </tr>
      )}
    </>
  );
}

// Records written before attempts kept their answer have only the last one, on the delivery.
function answerOf(a: Delivery['attempts'][number], d: Delivery, i: number): string {
  const body =
    a.response_body !== undefined ? a.response_body : i === d.attempts.length - 1 ? d.last_response_body : null;
  return body || '(empty)';
}

// A postback's attempts show the URL each one called (its token masked as ***).
function Attempts({ d }: { d: Delivery }) {
  const urls = d.kind === 'postback' || d.attempts.some((a) => a.url !== undefined);
  return (
    <div>
      <p class="mono">
        {d.id} · {d.kind ?? 'callback'} · event {d.event_id}
        {d.next_attempt_at ? ` · next attempt ${when(d.next_attempt_at)}` : ''}
      </p>
      <table class="inner">
        <caption>Attempts</caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">At</th>
            <th scope="col">HTTP</th>
            <th scope="col">Error</th>
            <th scope="col">Duration</th>
            {urls && <th scope="col">URL</th>}
            <th scope="col">Answer body</th>
          </tr>
        </thead>
        <tbody>
          {d.attempts.map((a, i) => (
            <tr key={i}>
              <td>{a.attempt}</td>
              <td>{when(a.at)}</td>
              <td>{a.http_status ?? '—'}</td>
              <td>{a.error ?? '—'}</td>
              <td>{a.duration_ms} ms</td>
              {urls && <td class="mono wrap">{a.url ?? '—'}</td>}
              <td>
                <pre class="body">{answerOf(a, d, i)}</pre>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {d.manual_retries.length > 0 && (
        <p>Retried by hand: {d.manual_retries.map((r) => `${when(r.at)} by ${r.by}`).join('; ')}</p>
      )}
    </div>
  );
}
