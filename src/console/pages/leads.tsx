import { useState } from 'preact/hooks';
import type { Api } from '../api';
import { DeliveryTable, type Delivery } from '../parts/delivery-table';
import { ErrorNote, PageHeading, ScrollTable, useLoad, when } from '../parts/ui';
import { go, href } from '../router';

// The fields of GET /api/leads/{id} this page shows.
interface Lead {
  id: string; affiliate_id: string; external_id: string; agent_id: string | null; created_at: string;
  status: string; reason: string | null; is_depositor: boolean; details: Record<string, string>;
  history: { event_id: string; event: string; from: string | null; to: string; at: string; why: string; source: string; reason: string | null }[];
  deliveries: Delivery[];
}

// Find a lead by le-<n>, or by partner and the partner's external id. The API never sends personal
// data or money, so the page cannot show any.
export function LeadsPage({ api, params }: { api: Api; params: URLSearchParams }) {
  const asked = { id: params.get('id') ?? '', partner: params.get('partner') ?? '', external_id: params.get('external_id') ?? '' };
  const [draft, setDraft] = useState(asked);
  const path = asked.id
    ? `/api/leads/${encodeURIComponent(asked.id)}`
    : asked.partner && asked.external_id ? `/api/affiliates/${encodeURIComponent(asked.partner)}/leads/${encodeURIComponent(asked.external_id)}` : null;
  const lead = useLoad(async () => (path ? api.get<Lead>(path) : null), [path]);
  const set = (f: keyof typeof asked) => (e: Event) => setDraft({ ...draft, [f]: (e.target as HTMLInputElement).value.trim() });

  return (
    <section>
      <PageHeading>Leads</PageHeading>
      <div class="two">
        <form class="filters" aria-label="Find by lead id" onSubmit={(e) => { e.preventDefault(); go('leads', { id: draft.id }); }}>
          <div class="field">
            <label for="lead-id">Lead id</label>
            <input id="lead-id" value={draft.id} onInput={set('id')} placeholder="le-1042" pattern="le-[0-9]+" required />
          </div>
          <button type="submit">Find by id</button>
        </form>
        <form class="filters" aria-label="Find by partner and external id" onSubmit={(e) => { e.preventDefault(); go('leads', { partner: draft.partner, external_id: draft.external_id }); }}>
          <div class="field">
            <label for="lead-partner">Partner id</label>
            <input id="lead-partner" value={draft.partner} onInput={set('partner')} placeholder="pa-…" required />
          </div>
          <div class="field">
            <label for="lead-external">External id</label>
            <input id="lead-external" value={draft.external_id} onInput={set('external_id')} required />
          </div>
          <button type="submit">Find by external id</button>
        </form>
      </div>
      <ErrorNote error={lead.error} />
      {lead.data && <LeadDetails api={api} lead={lead.data} onChange={lead.reload} />}
    </section>
  );
}

function LeadDetails({ api, lead, onChange }: { api: Api; lead: Lead; onChange: () => void }) {
  return (
    <article aria-labelledby="lead-title">
      <h2 id="lead-title">Lead {lead.id}</h2>
      <dl class="facts">
        <dt>Status</dt><dd><strong>{lead.status}</strong>{lead.reason ? ` (${lead.reason})` : ''}</dd>
        <dt>Partner</dt><dd class="mono"><a href={href(`partners/${lead.affiliate_id}`)}>{lead.affiliate_id}</a></dd>
        <dt>External id</dt><dd class="mono">{lead.external_id}</dd>
        <dt>Depositor</dt><dd>{lead.is_depositor ? 'yes' : 'no'}</dd>
        <dt>Agent</dt><dd class="mono">{lead.agent_id ?? '—'}</dd>
        <dt>Created</dt><dd>{when(lead.created_at)}</dd>
        {Object.entries(lead.details).map(([k, v]) => [<dt key={`t${k}`}>{k}</dt>, <dd key={`d${k}`} class="wrap">{v}</dd>])}
      </dl>
      <h3>History</h3>
      <ScrollTable label="Lead history">
        <thead><tr><th scope="col">At</th><th scope="col">Event</th><th scope="col">From</th><th scope="col">To</th><th scope="col">Why</th><th scope="col">Source</th></tr></thead>
        <tbody>
          {lead.history.map((h) => (
            <tr key={h.event_id}><td>{when(h.at)}</td><td>{h.event}</td><td>{h.from ?? '—'}</td><td>{h.to}</td><td>{h.why}{h.reason ? ` (${h.reason})` : ''}</td><td class="mono">{h.source}</td></tr>
          ))}
        </tbody>
      </ScrollTable>
      <h3>Events sent</h3>
      <DeliveryTable api={api} label="Callbacks of this lead" items={lead.deliveries} onChange={onChange} />
    </article>
  );
}
