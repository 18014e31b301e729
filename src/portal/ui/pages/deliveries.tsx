import { useState } from 'preact/hooks';
import { query, type Api, type CursorPage } from '../../../ui-kit/api';
import { CursorPager, useCursorPages } from '../../../ui-kit/cursor-pages';
import { go } from '../../../ui-kit/router';
import { ChoiceField, ErrorNote, Notice, PageHeading, useAction } from '../../../ui-kit/ui';
import { DeliveryList } from '../parts/delivery-list';
import { EndpointPanels } from '../parts/endpoint-panels';
import { ReplayForm } from '../parts/replay-form';
import { TestSends } from '../parts/test-sends';
import { useCan } from '../session';
import { EVENTS } from '../../../ui-kit/vocabulary.generated';
import type { PortalDelivery } from '../types.generated';

const FILTERS = ['state', 'event', 'kind'] as const;
const STATES = ['queued', 'delivered', 'dead'] as const;
const KINDS = ['callback', 'postback'] as const;

// The endpoints' health, then every callback and postback sent to the partner with its attempts; for
// a partner_admin, retrying the dead, resuming a paused endpoint, test sends and a replay of a time range.
export function DeliveriesPage({ api, params }: { api: Api; params: URLSearchParams }) {
  const can = useCan();
  const filter = Object.fromEntries(FILTERS.map((f) => [f, params.get(f) ?? ''])) as Record<
    (typeof FILTERS)[number],
    string
  >;
  const [draft, setDraft] = useState(filter);
  const [requeued, setRequeued] = useState<{ requeued: number; pending: number } | null>(null);
  const deliveries = useCursorPages(
    (cursor) => api.get<CursorPage<PortalDelivery>>(`/portal/api/deliveries${query({ ...filter, limit: 50, cursor })}`),
    params.toString(),
  );
  const retryDead = useAction(async () => {
    setRequeued(await api.post<{ requeued: number; pending: number }>('/portal/api/deliveries/retry-dead'));
    deliveries.reload();
  });
  const set = (f: (typeof FILTERS)[number]) => (e: Event) =>
    setDraft({ ...draft, [f]: (e.target as HTMLSelectElement).value });

  return (
    <section>
      <PageHeading>Callbacks and postbacks</PageHeading>
      <EndpointPanels api={api} />
      <h2>Deliveries</h2>
      <form
        class="filters"
        aria-label="Filter deliveries"
        onSubmit={(e) => {
          e.preventDefault();
          go('deliveries', draft);
        }}
      >
        <ChoiceField id="d-state" label="State" value={draft.state} choices={STATES} onChange={set('state')} />
        <ChoiceField id="d-event" label="Event" value={draft.event} choices={EVENTS} onChange={set('event')} />
        <ChoiceField id="d-kind" label="Kind" value={draft.kind} choices={KINDS} onChange={set('kind')} />
        <button type="submit">Filter</button>
      </form>
      {can('portal.act') && (
        <div class="actions">
          <button type="button" class="secondary" disabled={retryDead.busy} onClick={() => void retryDead.act()}>
            Retry all dead
          </button>
        </div>
      )}
      <ErrorNote error={retryDead.error} />
      {requeued && (
        <Notice>
          {requeued.requeued} dead deliveries queued again
          {requeued.pending > 0 ? `; ${requeued.pending} more not confirmed yet (they will be)` : ''}.
        </Notice>
      )}
      <ErrorNote error={deliveries.error} />
      {deliveries.data && (
        <>
          <DeliveryList api={api} items={deliveries.data.items} onChange={deliveries.reload} />
          <CursorPager pages={deliveries} />
        </>
      )}
      {can('portal.act') && (
        <div class="two">
          <TestSends api={api} />
          <ReplayForm api={api} />
        </div>
      )}
    </section>
  );
}
