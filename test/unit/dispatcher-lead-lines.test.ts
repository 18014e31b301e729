import { LineInputs } from '../support/line-inputs';

const item = (id: string) => ({ id });
const K = 'pa-1:le-1';

describe('one lead, one partner: callbacks in event order', () => {
  it('attempts the first event at once and keeps later ones waiting until it is recorded', () => {
    const lines = new LineInputs<{ id: string }>();
    expect(lines.arrive(K, item('a'))).toEqual({ run: item('a') });
    expect(lines.arrive(K, item('b'))).toEqual({});
    expect(lines.arrive(K, item('c'))).toEqual({});
    expect(lines.finished(K, 'a', 'ended')).toEqual({ run: item('b') });
    expect(lines.finished(K, 'b', 'ended')).toEqual({ run: item('c') });
    expect(lines.finished(K, 'c', 'ended')).toEqual({});
    expect(lines.size).toBe(0);
  });

  it('never makes another lead wait', () => {
    const lines = new LineInputs<{ id: string }>();
    lines.arrive(K, item('a'));
    expect(lines.arrive('pa-1:le-2', item('x'))).toEqual({ run: item('x') });
    expect(lines.arrive('pa-2:le-1', item('y'))).toEqual({ run: item('y') });
  });

  it('holds everything behind a delivery that goes to the retry path, then runs the held ones in order once it ends', () => {
    const lines = new LineInputs<{ id: string }>();
    lines.arrive(K, item('a'));
    lines.arrive(K, item('b'));
    expect(lines.finished(K, 'a', 'retrying')).toEqual({ hold: [item('b')], block: { blocker: 'a', held: ['b'] } });
    expect(lines.arrive(K, item('c'))).toEqual({ hold: [item('c')], block: { blocker: 'a', held: ['b', 'c'] } });
    expect(lines.released(K, 'zzz')).toEqual({}); // not its blocker
    expect(lines.released(K, 'a')).toEqual({ runHeld: 'b', block: { blocker: 'b', held: ['c'] } });
    expect(lines.arrive(K, item('d'))).toEqual({ hold: [item('d')], block: { blocker: 'b', held: ['c', 'd'] } });
    expect(lines.finished(K, 'b', 'ended')).toEqual({ runHeld: 'c', block: { blocker: 'c', held: ['d'] } });
    // A held one that fails in its turn becomes the blocker.
    expect(lines.finished(K, 'c', 'retrying')).toEqual({ hold: [], block: { blocker: 'c', held: ['d'] } });
    expect(lines.released(K, 'c')).toEqual({ runHeld: 'd', block: { blocker: 'd', held: [] } });
    expect(lines.finished(K, 'd', 'ended')).toEqual({ block: null });
    expect(lines.size).toBe(0);
    expect(lines.arrive(K, item('e'))).toEqual({ run: item('e') });
  });

  it('treats replays idempotently: a held one is held again without a new block, the blocker itself runs', () => {
    const lines = new LineInputs<{ id: string }>();
    lines.load(K, { blocker: 'a', held: ['b'] });
    expect(lines.arrive(K, item('b'))).toEqual({ hold: [item('b')] });
    expect(lines.arrive(K, item('a'))).toEqual({ run: item('a') });
    expect(lines.arrive(K, item('a'))).toEqual({});
    expect(lines.finished(K, 'a', 'ended')).toEqual({ runHeld: 'b', block: { blocker: 'b', held: [] } });
  });

  it('resumes a loaded blocker whose attempt was never recorded', () => {
    const lines = new LineInputs<{ id: string }>();
    lines.load(K, { blocker: 'b', held: ['c'] });
    expect(lines.resumeBlocker(K)).toEqual({ runHeld: 'b' });
    expect(lines.resumeBlocker(K)).toEqual({});
    expect(lines.finished(K, 'b', 'ended')).toEqual({ runHeld: 'c', block: { blocker: 'c', held: [] } });
  });

  // A kill between a lead's block (listing b held) and b's held record: b's event is uncommitted.
  it('attempts a held delivery without a record through its own event when that came again while the record was read', () => {
    const lines = new LineInputs<{ id: string }>();
    lines.load(K, { blocker: 'a', held: ['b', 'c'] });
    expect(lines.released(K, 'a')).toEqual({ runHeld: 'b', block: { blocker: 'b', held: ['c'] } });
    expect(lines.arrive(K, item('b'))).toEqual({}); // its event again, while b's record is read
    expect(lines.recordMissing(K, 'b')).toEqual({ run: item('b') });
    // Attempted in its turn, the line goes on in event order.
    expect(lines.finished(K, 'b', 'ended')).toEqual({ runHeld: 'c', block: { blocker: 'c', held: [] } });
  });

  it('moves on from a held delivery without a record when its event has not come again', () => {
    const lines = new LineInputs<{ id: string }>();
    lines.load(K, { blocker: 'a', held: ['b', 'c'] });
    lines.released(K, 'a');
    expect(lines.recordMissing(K, 'b')).toEqual({ runHeld: 'c', block: { blocker: 'c', held: [] } });
    expect(lines.recordMissing(K, 'b')).toEqual({}); // no longer its turn
  });

  it('lets memory win over a block read back while the lead is busy', () => {
    const lines = new LineInputs<{ id: string }>();
    lines.arrive(K, item('a'));
    lines.load(K, { blocker: 'old', held: [] });
    expect(lines.blocked(K)).toBeNull();
  });

  it('runs what waited in memory once the last held one ends', () => {
    const lines = new LineInputs<{ id: string }>();
    lines.arrive(K, item('a'));
    lines.finished(K, 'a', 'retrying');
    expect(lines.released(K, 'a')).toEqual({ block: null });
    expect(lines.arrive(K, item('b'))).toEqual({ run: item('b') });
  });
});
