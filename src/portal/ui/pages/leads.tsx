import { query, type Api, type CursorPage } from '../../../ui-kit/api';
import { CursorPager, useCursorPages } from '../../../ui-kit/cursor-pages';
import { href } from '../../../ui-kit/router';
import { zonedInstant } from '../../../ui-kit/time-range';
import { ErrorNote, PageHeading, ScrollTable, whenIn } from '../../../ui-kit/ui';
import { filterOf, LeadFilters, type Filter } from '../parts/lead-filters';
import { LeadTimeline } from '../parts/lead-timeline';
import type { PortalLead } from '../types.generated';
import { useZone } from '../zone';

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
  const filter = filterOf(params);
  const { zone } = useZone();
  const range = { from: zonedInstant(filter.from, zone), to: zonedInstant(filter.to, zone) };
  const leads = useCursorPages(
    (cursor) =>
      api.get<CursorPage<PortalLead>>(`/portal/api/leads${query({ ...filter, ...range, limit: 50, cursor })}`),
    params.toString(),
  );

  return (
    <section>
      <PageHeading>Leads</PageHeading>
      <LeadFilters key={params.toString()} api={api} filter={filter} zone={zone} />
      <ExportLink filter={filter} from={range.from} to={range.to} />
      <ErrorNote error={leads.error} />
      {leads.data && (
        <>
          <ScrollTable label="Leads" cards>
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
                  <td class="mono" data-label="Lead">
                    <a href={href(`leads/${l.id}`, Object.fromEntries(params))}>{l.id}</a>
                    {l.test ? ' (test)' : ''}
                  </td>
                  <td class="mono wrap" data-label="External id">
                    {l.external_id}
                  </td>
                  <td data-label="Status">
                    {l.status}
                    {l.reason ? <span class="muted small"> ({l.reason})</span> : null}
                  </td>
                  <td class="phone mono" data-label="Phone">
                    {l.phone ?? '—'}
                  </td>
                  <td data-label="Country">{l.country ?? '—'}</td>
                  <td class="wrap" data-label="Source">
                    {l.source ?? '—'}
                  </td>
                  <td data-label="Received">{whenIn(l.created_at, zone)}</td>
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

const MAX_EXPORT_DAYS = 31;

// A plain link (the cookie goes with it, the server names the file) to exactly what the filters
// show, as CSV; an export needs a range of at most 31 days.
function ExportLink({ filter, from, to }: { filter: Filter; from?: string; to?: string }) {
  const days = from && to ? (Date.parse(to) - Date.parse(from)) / 86_400_000 : null;
  if (days === null || days <= 0 || days > MAX_EXPORT_DAYS)
    return <p class="muted small">To download these leads as CSV, choose a range of at most 31 days.</p>;
  return (
    <p>
      <a class="button secondary" href={`/portal/api/leads.csv${query({ ...filter, from, to })}`} download>
        Download CSV
      </a>
    </p>
  );
}
