import type { LeadDoc } from '../../src/shared/mongo/documents';
import { LeadCache } from '../../src/processor/lifecycle/lead-cache';

// What the lead owner keeps in memory is bound to the partitions it holds (CONTRIBUTING.md: memory is a cache of the log).
const lead = (id: string) => ({ _id: id }) as LeadDoc;

it('keeps nothing for a partition it was not given', () => {
  const cache = new LeadCache(10);
  cache.remember({ partition: 0, generation: 0 }, lead('le-1'));
  expect(cache.get(0, 'le-1')).toBeUndefined();
});

it('drops a partition given away at a join and keeps the ones it still holds', () => {
  const cache = new LeadCache(10);
  cache.assigned([0, 1], 1);
  cache.remember({ partition: 0, generation: 1 }, lead('le-1'));
  cache.remember({ partition: 1, generation: 1 }, lead('le-2'));
  cache.assigned([1, 2], 2);
  expect(cache.get(0, 'le-1')).toBeUndefined();
  expect(cache.get(1, 'le-2')).toEqual(lead('le-2'));
  cache.assigned([0, 1, 2], 3);
  expect(cache.get(0, 'le-1')).toBeUndefined(); // back, but read again from the store
});

it('keeps nothing from a chunk fetched before the partition last came to it', () => {
  const cache = new LeadCache(10);
  cache.assigned([0], 1);
  cache.assigned([], 2);
  cache.assigned([0], 3);
  cache.remember({ partition: 0, generation: 1 }, lead('le-1')); // a chunk that outlived two joins
  expect(cache.get(0, 'le-1')).toBeUndefined();
  cache.remember({ partition: 0, generation: 3 }, lead('le-1'));
  expect(cache.get(0, 'le-1')).toEqual(lead('le-1'));
});

it('forgets one lead, or a whole partition whose chunk failed, and stays within its limit', () => {
  const cache = new LeadCache(3);
  cache.assigned([0, 1], 1);
  for (const id of ['le-1', 'le-2', 'le-3']) cache.remember({ partition: 0, generation: 1 }, lead(id));
  cache.remember({ partition: 1, generation: 1 }, lead('le-4'));
  expect(['le-1', 'le-2', 'le-3'].map((id) => cache.get(0, id) !== undefined)).toEqual([false, true, true]);
  cache.forget(0, 'le-2');
  expect(cache.get(0, 'le-2')).toBeUndefined();
  cache.clear(0);
  expect(cache.get(0, 'le-3')).toBeUndefined();
  expect(cache.get(1, 'le-4')).toEqual(lead('le-4'));
});
