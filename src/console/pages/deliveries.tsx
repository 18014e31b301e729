import { useState } from 'preact/hooks';
import { query, type Api, type CursorPage } from '../../ui-kit/api';
import { CursorPager, useCursorPages } from '../../ui-kit/cursor-pages';
import { DeliveryTable, type Delivery } from '../parts/delivery-table';
import { EndpointHealth } from '../parts/endpoint-health';
import { EVENTS, type Partner } from '../parts/partner-settings-form';
import { hasPostbacks } from '../parts/postbacks/postbacks-panel';
import { TimeRange, utcInstant } from '../../ui-kit/time-range';
import { ChoiceField, ErrorNote, Notice, PageHeading, useAction, useLoad } from '../../ui-kit/ui';
import { go } from '../../ui-kit/router';
import { useCan } from '../session';

const FILTERS = ['state', 'affiliate_id', 'event', 'from', 'to'] as const;
const STATES = ['queued', 'delivered', 'dead'] as const;

export function DeliveriesPage({ api, params }: { api: Api; params: URLSearchParams }) {
  const filter = Object.fromEntries(FILTERS.map((f) => [f, params.get(f) ?? ''])) as Record<
    (typeof FILTERS)[number],
    string
  >;
  const [draft, setDraft] = useState(filter);
  const can = useCan();
  const [requeued, setRequeued] = useState<{ requeued: number; pending: number } | null>(null);
  const deliveries = useCursorPages(
    (cursor) =>
      api.get<CursorPage<Delivery>>(
        `/api/deliveries${query({
          ...filter,
          from: utcInstant(filter.from),
          to: utcInstant(filter.to),
          limit: 50,
          cursor,
        })}`,
      ),
    params.toString(),
  );
  const retryDead = useAction(async () => {
    setRequeued(
      await api.post<{ requeued: number; pending: number }>(
        `/api/affiliates/${encodeURIComponent(filter.affiliate_id)}/deliveries/retry-dead`,
      ),
    );
    deliveries.reload();
  });
  // The tracker's health too when the partner has postbacks (an unknown partner id shows neither).
  const partner = useLoad(
    async () =>
      filter.affiliate_id
        ? (await api.answer<Partner>(`/api/affiliates/${encodeURIComponent(filter.affiliate_id)}`)).body
        : null,
    [filter.affiliate_id],
  );
  const set = (f: (typeof FILTERS)[number]) => (e: Event) =>
    setDraft({ ...draft, [f]: (e.target as HTMLInputElement).value });

  return (
    <section>
      <PageHeading>Deliveries</PageHeading>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          go('deliveries', draft);
        }}
      >
        <ChoiceField id="f-state" label="State" value={draft.state} choices={STATES} onChange={set('state')} />
        <div class="field">
          <label for="f-partner">Partner id</label>
          <input id="f-partner" value={draft.affiliate_id} onInput={set('affiliate_id')} placeholder="pa-…" />
        </div>
        <ChoiceField id="f-event" label="Event" value={draft.event} choices={EVENTS} onChange={set('event')} />
        <TimeRange idPrefix="f" from={draft.from} to={draft.to} onFrom={set('from')} onTo={set('to')} />
        <button type="submit">Filter</button>
      </form>
      {filter.affiliate_id && (
        <>
          {can('deliveries.retry') && (
            <div class="actions">
              <button type="button" disabled={retryDead.busy} onClick={() => void retryDead.act()}>
                Retry all dead of {filter.affiliate_id}
              </button>
            </div>
          )}
          <ErrorNote error={retryDead.error} />
          {requeued !== null && (
            <Notice>
              {requeued.requeued} dead deliveries queued again
              {requeued.pending > 0 ? `; ${requeued.pending} more not confirmed yet (they will be)` : ''}.
            </Notice>
          )}
          <div class="two">
            {can('endpoints.read') && <EndpointHealth api={api} partnerId={filter.affiliate_id} />}
            {can('endpoints.read') && partner.data && hasPostbacks(partner.data) && (
              <EndpointHealth api={api} partnerId={filter.affiliate_id} kind="postback" />
            )}
          </div>
        </>
      )}
      <ErrorNote error={deliveries.error} />
      {deliveries.data && (
        <>
          <DeliveryTable api={api} label="Deliveries" items={deliveries.data.items} onChange={deliveries.reload} />
          <CursorPager pages={deliveries} />
        </>
      )}
    </section>
  );
}
