import { MongoClient } from 'mongodb';
import { ListIndex, listPrefix, type ListEntry, type ListEntryDoc } from '../../src/shared/store/list-index';
import { testConfig } from '../support/test-config';

// A list read model's pages on the real store: merged across prefixes, both orders, bounded by
// time, continued by cursor, with no entry lost or repeated, whatever the key parts hold.
const config = testConfig();
let mongo: MongoClient;
let index: ListIndex;
const entries: ListEntry[] = [];
const EVENTS = ['lead.accepted', 'lead.ftd', 'lead.status_changed'];
const START = Date.UTC(2026, 10, 1);

beforeAll(async () => {
  mongo = await MongoClient.connect(config.mongo.url);
  index = new ListIndex(mongo.db(config.mongo.db).collection<ListEntryDoc>('list_index_test'));
  for (let n = 0; n < 900; n++) {
    // Several entries share a millisecond: the item id breaks the tie.
    entries.push({
      prefix: listPrefix('t', n % 2 ? 'social|ads' : "o'brien (uk)", EVENTS[n % 3]!),
      at: new Date(START + Math.floor(n / 4) * 1000),
      ref: `it-${n}`,
    });
  }
  await index.put(entries);
  await index.put(entries.slice(0, 10)); // again: nothing changes
});

afterAll(async () => {
  await mongo.db(config.mongo.db).dropDatabase();
  await mongo.close();
});

const refsOf = (source: string, order: 'asc' | 'desc', from?: number, to?: number) =>
  entries
    .filter(
      (e) =>
        e.prefix.startsWith(listPrefix('t', source)) &&
        (from === undefined || e.at.getTime() >= from) &&
        (to === undefined || e.at.getTime() < to),
    )
    .sort((a, b) => a.at.getTime() - b.at.getTime() || (a.ref < b.ref ? -1 : 1))
    .map((e) => e.ref)
    [order === 'asc' ? 'slice' : 'reverse']();

async function readAll(
  source: string,
  order: 'asc' | 'desc',
  limit: number,
  from?: number,
  to?: number,
): Promise<string[]> {
  const prefixes = EVENTS.map((e) => listPrefix('t', source, e));
  const seen: string[] = [];
  let after: string | null = null;
  do {
    const page = await index.page({
      prefixes,
      order,
      limit,
      after,
      from: from === undefined ? undefined : new Date(from),
      to: to === undefined ? undefined : new Date(to),
    });
    expect(page.entries.length).toBeLessThanOrEqual(limit);
    seen.push(...page.entries.map((e) => e.ref));
    after = page.next;
  } while (after !== null);
  return seen;
}

it.each<['asc' | 'desc', number]>([
  ['desc', 20],
  ['asc', 20],
  ['desc', 7],
  ['asc', 500],
])('pages %s by %i across the merged prefixes, every entry once, in order', async (order, limit) => {
  for (const source of ['social|ads', "o'brien (uk)"])
    expect(await readAll(source, order, limit)).toEqual(refsOf(source, order));
});

it('bounds pages by time: from inclusive, to exclusive', async () => {
  const from = START + 30_000;
  const to = START + 60_000;
  expect(await readAll('social|ads', 'desc', 9, from, to)).toEqual(refsOf('social|ads', 'desc', from, to));
  expect(await readAll('social|ads', 'asc', 9, from, to)).toEqual(refsOf('social|ads', 'asc', from, to));
});

it('walks a whole view, and removes entries', async () => {
  const prefixes = EVENTS.map((e) => listPrefix('t', 'social|ads', e));
  const all: string[] = [];
  for await (const e of index.all({ prefixes, order: 'asc' }, 50)) all.push(e.ref);
  expect(all).toEqual(refsOf('social|ads', 'asc'));
  const gone = entries.filter((e) => e.prefix.startsWith(listPrefix('t', 'social|ads')) && e.ref.endsWith('1'));
  await index.remove(gone);
  expect(await readAll('social|ads', 'desc', 50)).toEqual(refsOf('social|ads', 'desc').filter((r) => !r.endsWith('1')));
});
