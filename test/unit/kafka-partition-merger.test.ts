import { PartitionMerger } from '../../src/shared/kafka/partition-merger';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('PartitionMerger', () => {
  it("hands the parts submitted within the linger to one run, with the first part's context", async () => {
    const runs: { records: number[]; first: string }[] = [];
    const merger = new PartitionMerger<number, string>(20, 100, async (records, first) => {
      runs.push({ records, first });
    });
    const done = Promise.all([merger.submit([1, 2], 'p0'), merger.submit([3], 'p1'), merger.submit([4, 5], 'p2')]);
    expect(runs).toEqual([]); // nothing before the linger ends
    await done;
    expect(runs).toEqual([{ records: [1, 2, 3, 4, 5], first: 'p0' }]);
  });

  it('runs at once when the parts reach the maximum, and never merges past it', async () => {
    const runs: number[][] = [];
    const merger = new PartitionMerger<number, string>(10_000, 4, async (records) => {
      runs.push(records);
    });
    const a = merger.submit([1, 2, 3], 'p0');
    const b = merger.submit([4, 5], 'p1'); // 3 + 2 > 4: the first part goes alone
    const c = merger.submit([6, 7], 'p2'); // 2 + 2 = 4: these two go together, at once
    await Promise.all([a, b, c]);
    expect(runs).toEqual([
      [1, 2, 3],
      [4, 5, 6, 7],
    ]);
  });

  it('gives every part of a failed run the error, and the next parts a run of their own', async () => {
    let calls = 0;
    const merger = new PartitionMerger<number, string>(5, 100, async (records) => {
      calls++;
      if (records.includes(2)) throw new Error('bad record');
    });
    const results = await Promise.allSettled([merger.submit([1], 'p0'), merger.submit([2], 'p1')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await wait(1);
    await expect(merger.submit([3], 'p0')).resolves.toBeUndefined();
    expect(calls).toBe(2);
  });
});
