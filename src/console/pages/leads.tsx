import { useState } from 'preact/hooks';
import type { Api } from '../../ui-kit/api';
import { LeadDetails, type Lead } from '../parts/lead-details';
import { LeadList } from '../parts/lead-list';
import { ErrorNote, PageHeading, useLoad } from '../../ui-kit/ui';
import { go } from '../../ui-kit/router';

// Find a lead by le-<n>, or by partner and the partner's external id; with neither asked, the lead
// list. The API never sends personal data or money, so the page cannot show any.
export function LeadsPage({ api, params }: { api: Api; params: URLSearchParams }) {
  const asked = {
    id: params.get('id') ?? '',
    partner: params.get('partner') ?? '',
    external_id: params.get('external_id') ?? '',
  };
  const [draft, setDraft] = useState(asked);
  const path = asked.id
    ? `/api/leads/${encodeURIComponent(asked.id)}`
    : asked.partner && asked.external_id
      ? `/api/affiliates/${encodeURIComponent(asked.partner)}/leads/${encodeURIComponent(asked.external_id)}`
      : null;
  const lead = useLoad(async () => (path ? api.get<Lead>(path) : null), [path]);
  const set = (f: keyof typeof asked) => (e: Event) =>
    setDraft({ ...draft, [f]: (e.target as HTMLInputElement).value.trim() });

  return (
    <section>
      <PageHeading>Leads</PageHeading>
      <div class="two">
        <form
          class="filters"
          aria-label="Find by lead id"
          onSubmit={(e) => {
            e.preventDefault();
            go('leads', { id: draft.id });
          }}
        >
          <div class="field">
            <label for="lead-id">Lead id</label>
            <input
              id="lead-id"
              value={draft.id}
              onInput={set('id')}
              placeholder="le-1042"
              pattern="le-[0-9]+"
              required
            />
          </div>
          <button type="submit">Find by id</button>
        </form>
        <form
          class="filters"
          aria-label="Find by partner and external id"
          onSubmit={(e) => {
            e.preventDefault();
            go('leads', { partner: draft.partner, external_id: draft.external_id });
          }}
        >
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
      {path === null && <LeadList key={params.toString()} api={api} params={params} />}
    </section>
  );
}
