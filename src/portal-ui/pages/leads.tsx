import { useState } from 'preact/hooks';
import { query, type Api, type CursorPage } from '../../ui-kit/api';
import { CursorPager, useCursorPages } from '../../ui-kit/cursor-pages';
import { go, href } from '../../ui-kit/router';
import { TimeRange, utcInstant } from '../../ui-kit/time-range';
import { ErrorNote, PageHeading, ScrollTable, when } from '../../ui-kit/ui';
import { LeadTimeline } from '../parts/lead-timeline';
import type { PortalLead } from '../types';

// The filters, kept in the URL under the API's own names.
const FILTERS = ['status', 'from', 'to', 'source', 'country', 'external_id'] as const;
type Filter = Record<(typeof FILTERS)[number], string>;
const STATUSES = [
  'new',
  'accepted',
  'rejected',
  'duplicate',
  'contacted',
  'callback',
  'interested',
  'no_answer',
  'ftd',
  'chargeback',
];

// The partner's leads, newest first, and one lead's timeline (#/leads/<id>). A phone number is only
// ever shown masked; the API sends nothing more.
export function LeadsPage({ api, params, id }: { api: Api; params: URLSearchParams; id?: string }) {
  return id ? (
    <LeadTimeline key={id} api={api} id={id} back={href('leads', Object.fromEntries(params))} />
  ) : (
    <LeadList api={api} params={params} />
  );
}

function LeadList({ api, params }: { api: Api; params: URLSearchParams }) {
  const filter = Object.fromEntries(FILTERS.map((f) => [f, params.get(f) ?? ''])) as Filter;
  const [draft, setDraft] = useState(filter);
  const leads = useCursorPages(
    (cursor) =>
      api.get<CursorPage<PortalLead>>(
        `/portal/api/leads${query({
          ...filter,
          from: utcInstant(filter.from),
          to: utcInstant(filter.to),
          limit: 50,
          cursor,
        })}`,
      ),
    params.toString(),
  );
  const set = (f: keyof Filter) => (e: Event) =>
    setDraft({ ...draft, [f]: (e.target as HTMLInputElement).value.trim() });

  return (
    <section>
      <PageHeading>Leads</PageHeading>
      <form
        class="filters"
        aria-label="Filter leads"
        onSubmit={(e) => {
          e.preventDefault();
          go('leads', { ...draft, country: draft.country.toUpperCase() });
        }}
      >
        <div class="field">
          <label for="l-status">Status</label>
          <input id="l-status" list="l-status-codes" value={draft.status} onInput={set('status')} placeholder="any" />
          <datalist id="l-status-codes">
            {STATUSES.map((s) => (
              <option key={s} value={s} />
            ))}
          </datalist>
        </div>
        <TimeRange idPrefix="l" from={draft.from} to={draft.to} onFrom={set('from')} onTo={set('to')} />
        <div class="field">
          <label for="l-source">Source</label>
          <input id="l-source" value={draft.source} onInput={set('source')} placeholder="any" />
        </div>
        <div class="field">
          <label for="l-country">Country</label>
          <input
            id="l-country"
            value={draft.country}
            onInput={set('country')}
            placeholder="GB"
            maxLength={2}
            pattern="[A-Za-z]{2}"
          />
        </div>
        <div class="field">
          <label for="l-external">External id</label>
          <input id="l-external" value={draft.external_id} onInput={set('external_id')} />
        </div>
        <button type="submit">Filter</button>
      </form>
      <ErrorNote error={leads.error} />
      {leads.data && (
        <>
          <ScrollTable label="Leads">
            <thead>
              <tr>
                <th scope="col">Lead</th>
                <th scope="col">External id</th>
                <th scope="col">Status</th>
                <th scope="col">Phone</th>
                <th scope="col">Country</th>
                <th scope="col">Source</th>
                <th scope="col">Received</th>
              </tr>
            </thead>
            <tbody>
              {leads.data.items.map((l) => (
                <tr key={l.id}>
                  <td class="mono">
                    <a href={href(`leads/${l.id}`, Object.fromEntries(params))}>{l.id}</a>
                    {l.test ? ' (test)' : ''}
                  </td>
                  <td class="mono wrap">{l.external_id}</td>
                  <td>
                    {l.status}
                    {l.reason ? <span class="muted small"> ({l.reason})</span> : null}
                  </td>
                  <td class="phone mono">{l.phone ?? '—'}</td>
                  <td>{l.country ?? '—'}</td>
                  <td class="wrap">{l.source ?? '—'}</td>
                  <td>{when(l.created_at)}</td>
                </tr>
              ))}
              {leads.data.items.length === 0 && (
                <tr>
                  <td colSpan={7}>
                    {leads.data.next_cursor === null
                      ? 'No leads match.'
                      : 'None in this stretch of leads; "Older" searches further back.'}
                  </td>
                </tr>
              )}
            </tbody>
          </ScrollTable>
          <CursorPager pages={leads} />
        </>
      )}
    </section>
  );
}
