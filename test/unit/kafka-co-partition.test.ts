import { assertCoPartitioned, assignPartitionNumbers } from '../../src/shared/kafka/co-partition-assigner';

describe('co-partitioned assignment', () => {
  it('gives each partition number to exactly one member, round robin in member order', () => {
    const owners = assignPartitionNumbers([5, 0, 3, 1, 4, 2], ['m-b', 'm-a']);
    expect(owners.get('m-b')).toEqual([0, 2, 4]);
    expect(owners.get('m-a')).toEqual([1, 3, 5]);
  });

  it('leaves extra members without partitions rather than splitting one', () => {
    const owners = assignPartitionNumbers([0, 1], ['a', 'b', 'c']);
    expect([...owners.values()]).toEqual([[0], [1], []]);
  });

  it('refuses topics with different partition counts', () => {
    expect(() =>
      assertCoPartitioned(
        new Map([
          ['x', 6],
          ['y', 6],
        ]),
      ),
    ).not.toThrow();
    expect(() =>
      assertCoPartitioned(
        new Map([
          ['x', 6],
          ['y', 3],
        ]),
      ),
    ).toThrow(/equal partition counts: x=6, y=3/);
  });
});
