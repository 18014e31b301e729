import { OffsetWatermark } from '../../src/shared/kafka/offset-watermark';

describe('offset watermark', () => {
  it('commits only up to the first record not done', () => {
    const wm = new OffsetWatermark();
    for (const o of ['10', '11', '12', '13']) wm.track(o);
    expect(wm.toCommit()).toBeNull();
    wm.done('11');
    wm.done('13');
    expect(wm.toCommit()).toBeNull(); // 10 still under way
    wm.done('10');
    expect(wm.toCommit()).toBe('12'); // the next offset to read
    wm.done('12');
    expect(wm.toCommit()).toBe('14');
  });

  it('forgets what a commit covered, and keeps counting what a crash would replay', () => {
    const wm = new OffsetWatermark();
    for (const o of ['0', '1', '2']) wm.track(o);
    wm.done('0');
    wm.done('2');
    expect(wm.uncommitted).toBe(3);
    const next = wm.toCommit()!;
    wm.track('3');
    wm.committed(next);
    expect(wm.uncommitted).toBe(3); // 1, 2 and 3
    wm.done('1');
    expect(wm.toCommit()).toBe('3');
    wm.committed('3');
    expect(wm.uncommitted).toBe(1);
    expect(wm.toCommit()).toBeNull();
  });

  it('ignores done() of offsets it does not track, and a second track of the same offset', () => {
    const wm = new OffsetWatermark();
    wm.track('5');
    wm.track('5');
    wm.done('4');
    expect(wm.uncommitted).toBe(1);
    wm.done('5');
    expect(wm.toCommit()).toBe('6');
  });

  it('refuses offsets out of order', () => {
    const wm = new OffsetWatermark();
    wm.track('7');
    expect(() => wm.track('6')).toThrow(/tracked after 7/);
  });

  it('handles offsets beyond 2^53', () => {
    const wm = new OffsetWatermark();
    wm.track('9007199254740993');
    wm.done('9007199254740993');
    expect(wm.toCommit()).toBe('9007199254740994');
  });
});
