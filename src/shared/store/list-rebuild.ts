import type { Collection, Document } from 'mongodb';
import { auditListEntries } from '../audit';
import type { Collections } from '../mongo/client';
import { deliveryEntries } from './delivery-list';
import { queueEntries, type IsTerminal } from './agent-queue';
import { leadListEntries } from './lead-list';
import { ListIndex, type ListEntry } from './list-index';

const CHUNK = 1000;

export interface ListRebuildSummary {
  leads: number;
  deliveries: number;
  audit: number;
}

// Lists every stored item again (a store written before the list read models, or a list lost):
// each collection read by _id ranges in _id order, a chunk at a time, its entries inserted (an
// entry that exists stays). Safe beside the running roles: an item that moves meanwhile is listed
// by its writer too, and a stale entry is dropped by the readers. `isTerminal`: the installation's
// status catalogue (a terminal lead is in no agent's queue).
export async function rebuildLists(
  c: Collections,
  isTerminal: IsTerminal,
  log: (m: string) => void = () => undefined,
): Promise<ListRebuildSummary> {
  const leads = await relist(
    c.leads,
    new ListIndex(c.leadList),
    (l) => [...leadListEntries(l), ...queueEntries(l, isTerminal)],
    {
      _id: 1,
      partner_id: 1,
      status: 1,
      is_depositor: 1,
      agent_id: 1,
      created_at: 1,
      country_code: 1,
      source: 1,
      sub_id: 1,
      click_id: 1,
      callback_at: 1,
      personal_erased_at: 1,
    },
    log,
  );
  const deliveries = await relist(
    c.deliveries,
    new ListIndex(c.deliveryList),
    deliveryEntries,
    { _id: 1, event: 1, state: 1, created_at: 1 },
    log,
  );
  const audit = await relist(c.audit, new ListIndex(c.auditList), auditListEntries, {}, log);
  return { leads, deliveries, audit };
}

async function relist<D extends Document & { _id: string }>(
  items: Collection<D>,
  index: ListIndex,
  entries: (item: D) => ListEntry[],
  projection: Document,
  log: (m: string) => void,
): Promise<number> {
  let after: string | null = null;
  let n = 0;
  for (;;) {
    const filter = after === null ? {} : { _id: { $gt: after } };
    const chunk = (await items
      .find(filter as never, { projection: Object.keys(projection).length > 0 ? projection : undefined })
      .sort({ _id: 1 })
      .limit(CHUNK)
      .toArray()) as unknown as D[];
    if (chunk.length === 0) return n;
    await index.put(chunk.flatMap(entries));
    n += chunk.length;
    after = chunk[chunk.length - 1]!._id;
    if (n % 100_000 < CHUNK) log(`${items.collectionName}: ${n} listed`);
  }
}
