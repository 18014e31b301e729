import type { Api } from '../../ui-kit/api';
import { href } from '../../ui-kit/router';
import { DeliveryTable, type Delivery } from './delivery-table';
import { ScrollTable, when } from '../../ui-kit/ui';

// The fields of GET /api/leads/{id} the lead page shows.
export interface Lead {
  id: string;
  affiliate_id: string;
  external_id: string;
  agent_id: string | null;
  created_at: string;
  status: string;
  reason: string | null;
  is_depositor: boolean;
  details: Record<string, string>;
  history: {
    event_id: string;
    event: string;
    from: string | null;
    to: string;
    at: string;
    why: string;
    source: string;
    reason: string | null;
  }[];
  deliveries: Delivery[];
}

export function LeadDetails({ api, lead, onChange }: { api: Api; lead: Lead; onChange: () => void }) {
  return (
    <article aria-labelledby="lead-title">
      <h2 id="lead-title">Lead {lead.id}</h2>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <strong>{lead.status}</strong>
          {lead.reason ? ` (${lead.reason})` : ''}
        </dd>
        <dt>Partner</dt>
        <dd class="mono">
          <a href={href(`partners/${lead.affiliate_id}`)}>{lead.affiliate_id}</a>
        </dd>
        <dt>External id</dt>
        <dd class="mono">{lead.external_id}</dd>
        <dt>Depositor</dt>
        <dd>{lead.is_depositor ? 'yes' : 'no'}</dd>
        <dt>Agent</dt>
        <dd class="mono">{lead.agent_id ?? '—'}</dd>
        <dt>Created</dt>
        <dd>{when(lead.created_at)}</dd>
        {Object.entries(lead.details).map(([k, v]) => [
          <dt key={`t${k}`}>{k}</dt>,
          <dd key={`d${k}`} class="wrap">
            {v}
          </dd>,
        ])}
      </dl>
      <h3>History</h3>
      <ScrollTable label="Lead history">
        <thead>
          <tr>
            <th scope="col">At</th>
            <th scope="col">Event</th>
            <th scope="col">From</th>
            <th scope="col">To</th>
            <th scope="col">Why</th>
            <th scope="col">Source</th>
          </tr>
        </thead>
        <tbody>
          {lead.history.map((h) => (
            <tr key={h.event_id}>
              <td>{when(h.at)}</td>
              <td>{h.event}</td>
              <td>{h.from ?? '—'}</td>
              <td>{h.to}</td>
              <td>
                {h.why}
                {h.reason ? ` (${h.reason})` : ''}
              </td>
              <td class="mono">{h.source}</td>
            </tr>
          ))}
        </tbody>
      </ScrollTable>
      <h3>Events sent</h3>
      <DeliveryTable api={api} label="Callbacks of this lead" items={lead.deliveries} onChange={onChange} />
    </article>
  );
}
