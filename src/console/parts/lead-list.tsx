import { useState } from 'preact/hooks';
import { query, type Api, type CursorPage } from '../../ui-kit/api';
import { go, href } from '../../ui-kit/router';
import { CursorPager, useCursorPages } from '../../ui-kit/cursor-pages';
import { TimeRange, utcInstant } from '../../ui-kit/time-range';
import { ErrorNote, ScrollTable, when } from '../../ui-kit/ui';

// A row of GET /api/leads: what a list is scanned by, never personal data.
interface LeadRow {
  id: string;
  affiliate_id: string;
  external_id: string;
  status: string;
  is_depositor: boolean;
  agent_id: string | null;
  country_code: string | null;
  source: string | null;
  test: boolean;
  created_at: string;
}

// The list's filters, kept in the URL under the API's own names.
export const LEAD_FILTERS = [
  'affiliate_id',
  'status',
  'country_code',
  'source',
  'is_depositor',
  'from',
  'to',
  'limit',
] as const;
const PAGE_SIZES = ['10', '50', '200'];
type Filter = Record<(typeof LEAD_FILTERS)[number], string>;

// The default catalogue's codes as suggestions; an installation's own codes can still be typed.
const STATUSES = [
  'new',
  'assigned',
  'contacted',
  'callback',
  'interested',
  'no_answer',
  'wrong_number',
  'trash',
  'ftd',
  'rtd',
  'chargeback',
  'rejected',
];

export function LeadList({ api, params }: { api: Api; params: URLSearchParams }) {
  const filter = Object.fromEntries(LEAD_FILTERS.map((f) => [f, params.get(f) ?? ''])) as Filter;
  const [draft, setDraft] = useState(filter);
  const leads = useCursorPages(
    (cursor) =>
      api.get<CursorPage<LeadRow>>(
        `/api/leads${query({
          ...filter,
          is_depositor: filter.is_depositor === 'true' ? 'true' : undefined,
          from: utcInstant(filter.from),
          to: utcInstant(filter.to),
          limit: PAGE_SIZES.includes(filter.limit) ? filter.limit : '50',
          cursor,
        })}`,
      ),
    params.toString(),
  );
  const set = (f: keyof Filter) => (e: Event) =>
    setDraft({ ...draft, [f]: (e.target as HTMLInputElement).value.trim() });
  const submit = (e: Event) => {
    e.preventDefault();
    go('leads', { ...draft, country_code: draft.country_code.toUpperCase() });
  };

  return (
    <section aria-labelledby="lead-list-title">
      <h2 id="lead-list-title">Lead list</h2>
      <form class="filters" aria-label="Filter leads" onSubmit={submit}>
        <div class="field">
          <label for="l-partner">Partner</label>
          <input id="l-partner" value={draft.affiliate_id} onInput={set('affiliate_id')} placeholder="pa-…" />
        </div>
        <div class="field">
          <label for="l-status">Status</label>
          <input id="l-status" list="l-status-codes" value={draft.status} onInput={set('status')} placeholder="any" />
          <datalist id="l-status-codes">
            {STATUSES.map((s) => (
              <option key={s} value={s} />
            ))}
          </datalist>
        </div>
        <div class="field">
          <label for="l-country">Country</label>
          <input
            id="l-country"
            value={draft.country_code}
            onInput={set('country_code')}
            placeholder="GB"
            maxLength={2}
            pattern="[A-Za-z]{2}"
          />
        </div>
        <div class="field">
          <label for="l-source">Source</label>
          <input id="l-source" value={draft.source} onInput={set('source')} />
        </div>
        <TimeRange idPrefix="l" from={draft.from} to={draft.to} onFrom={set('from')} onTo={set('to')} />
        <div class="field">
          <label class="check">
            <input
              type="checkbox"
              checked={draft.is_depositor === 'true'}
              onChange={(e) =>
                setDraft({ ...draft, is_depositor: (e.target as HTMLInputElement).checked ? 'true' : '' })
              }
            />
            Depositors only
          </label>
        </div>
        <div class="field">
          <label for="l-limit">Per page</label>
          <select id="l-limit" value={draft.limit || '50'} onChange={set('limit')}>
            {PAGE_SIZES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Show leads</button>
      </form>
      <ErrorNote error={leads.error} />
      {leads.data && (
        <>
          <ScrollTable label="Leads">
            <thead>
              <tr>
                <th scope="col">Lead</th>
                <th scope="col">Partner</th>
                <th scope="col">External id</th>
                <th scope="col">Status</th>
                <th scope="col">Depositor</th>
                <th scope="col">Country</th>
                <th scope="col">Source</th>
                <th scope="col">Agent</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {leads.data.items.map((l) => (
                <tr key={l.id}>
                  <td class="mono">
                    <a href={href('leads', { id: l.id })}>{l.id}</a>
                    {l.test ? ' (test)' : ''}
                  </td>
                  <td class="mono">{l.affiliate_id}</td>
                  <td class="mono wrap">{l.external_id}</td>
                  <td>{l.status}</td>
                  <td>{l.is_depositor ? 'yes' : 'no'}</td>
                  <td>{l.country_code ?? '—'}</td>
                  <td class="wrap">{l.source ?? '—'}</td>
                  <td class="mono">{l.agent_id ?? '—'}</td>
                  <td>{when(l.created_at)}</td>
                </tr>
              ))}
              {leads.data.items.length === 0 && (
                <tr>
                  <td colSpan={9}>
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
