import type { BatchConsumerOptions } from '../../src/shared/kafka/batch-consumer';

// The batch consumer's strategies (handled, handled with partitions merged, recorded) take only the
// options that make sense together: the others do not compile (npm run typecheck checks this file).
const base = { group: 'g', topics: [] as const, undecodable: async () => undefined, handle: async () => undefined };

const valid: BatchConsumerOptions<unknown>[] = [
  { ...base },
  { ...base, coPartitioned: true },
  { ...base, mergePartitionsMs: 5 },
  { ...base, commit: 'recorded', coPartitioned: true, maxUncommitted: 10, handOver: async () => undefined },
];

const invalid: BatchConsumerOptions<unknown>[] = [
  // @ts-expect-error merging partitions needs them not co-partitioned
  { ...base, mergePartitionsMs: 5, coPartitioned: true },
  // @ts-expect-error merging partitions needs commit 'handled'
  { ...base, mergePartitionsMs: 5, commit: 'recorded' },
  // @ts-expect-error a hand-over needs commit 'recorded'
  { ...base, handOver: async () => undefined },
  // @ts-expect-error a bound on uncommitted offsets needs commit 'recorded'
  { ...base, maxUncommitted: 10 },
];

it("types each strategy's options", () => expect(valid.length + invalid.length).toBe(8));
