import { blockOf } from '../../src/dispatcher/lead-owner/lead-lines';
import { plan, type OwnerInput } from '../../src/dispatcher/lead-owner/plan';
import { delivered, failed, fresh, heldTurn, K, round, type TestItem } from '../support/lead-plan';
import { blockedLead, lead } from '../support/lead-outcomes';

// The lead owner's ordering rules as outcomes, in the order the plan (src/dispatcher/lead-owner/plan.ts)
// has them happen: what is sent, published, saved and written, and which offset may move.

describe('one delivery of a lead at a time, in event order', () => {
  it('sends the first delivery of a lead at once and keeps the later ones in memory until it is recorded', () => {
    const { carry } = lead();
    expect(carry({ kind: 'arrived', item: fresh('a') })).toEqual(['send a']);
    expect(carry({ kind: 'arrived', item: fresh('b') })).toEqual([]);
    expect(carry({ kind: 'arrived', item: fresh('c') })).toEqual([]);
  });

  it('sends the next delivery of the lead only once the one before is recorded', () => {
    const { carry } = lead('a', 'b');
    expect(carry({ kind: 'attempted', item: fresh('a'), done: delivered })).toEqual([
      'slot of a let go',
      'record a: delivered, first record',
      'offset of a may move',
      'send b',
    ]);
  });

  it('never makes another lead or another endpoint wait', () => {
    const { lines, carry } = blockedLead();
    expect(lines.blocked(K)?.blocker).toBe('a');
    expect(carry({ kind: 'arrived', item: fresh('b') })).toEqual([
      'block a [b]',
      'record b: held by a, first record',
      'counted held b',
      'offset of b may move',
    ]);
    expect(lead().carry({ kind: 'arrived', item: fresh('x') })).toEqual(['send x']);
  });
});

describe('an attempt that failed', () => {
  it('moves the line before the retry task exists, so that its release finds it the blocker', () => {
    const { lines, plan, carry } = lead('a', 'b');
    plan({ kind: 'attempted', item: fresh('a'), done: failed }); // planned, nothing carried out yet
    expect(lines.blocked(K)).toEqual({ blocker: 'a', held: ['b'] });
    // However soon the release comes (before any of it is carried out), it finds `a` blocking.
    expect(carry({ kind: 'released', blocker: 'a' })).toEqual(['block b []', 'read the record of b']);
  });

  it('saves the block and publishes the task before the record: a crash in between replays the event', () => {
    const { carry } = lead('a');
    expect(carry({ kind: 'attempted', item: fresh('a'), done: failed })).toEqual([
      'task a on retry1',
      'block a []',
      'slot of a let go',
      'record a: queued, first record',
      'offset of a may move',
    ]);
  });

  it('lets the partner slot go once the task is out, before the record is written', () => {
    const { carry } = lead('a');
    const out = carry({ kind: 'attempted', item: fresh('a'), done: failed });
    expect(out.indexOf('slot of a let go')).toBeGreaterThan(out.indexOf('task a on retry1'));
    expect(out.indexOf('slot of a let go')).toBeLessThan(out.indexOf('record a: queued, first record'));
  });

  it('holds the deliveries that waited behind it only once its record is written, behind it', () => {
    const { carry } = lead('a', 'b');
    expect(carry({ kind: 'attempted', item: fresh('a'), done: failed })).toEqual([
      'task a on retry1',
      'block a [b]',
      'slot of a let go',
      'record a: queued, first record',
      'offset of a may move',
      'record b: held by a, first record',
      'counted held b',
      'offset of b may move',
    ]);
  });

  it("adds a fresh round's attempt to the record it has", () => {
    const { carry } = lead();
    carry({ kind: 'arrived', item: round('r') });
    expect(carry({ kind: 'attempted', item: round('r'), done: delivered })).toEqual([
      'slot of r let go',
      'record r: delivered, attempt added',
      'offset of r may move',
    ]);
  });
});

describe('held deliveries', () => {
  it('saves the block that lists a held delivery before its record says held', () => {
    const { carry } = blockedLead();
    expect(carry({ kind: 'arrived', item: fresh('b') })).toEqual([
      'block a [b]',
      'record b: held by a, first record',
      'counted held b',
      'offset of b may move',
    ]);
  });

  it('marks a fresh round held on the record it has', () => {
    const { carry } = blockedLead();
    expect(carry({ kind: 'arrived', item: round('r') })).toContain('record r: held by a');
  });

  it("writes a held delivery's record in its lead's turn, before any later block of its lead", () => {
    const { carry } = blockedLead('b');
    carry({ kind: 'released', blocker: 'a' });
    expect(carry({ kind: 'turn-read', id: 'b', record: heldTurn('b', 'a').doc })).toEqual(['send b']);
    expect(carry({ kind: 'attempted', item: heldTurn('b', 'a'), done: delivered })).toEqual([
      "record b: delivered, in its lead's turn",
      'block removed',
      'slot of b let go',
      'offset of b may move',
    ]);
  });

  it('lets the next held delivery go when the blocker is released, its block saved first', () => {
    const { lines, carry } = blockedLead('b', 'c');
    expect(carry({ kind: 'released', blocker: 'zzz' })).toEqual([]); // not its blocker
    expect(carry({ kind: 'released', blocker: 'a' })).toEqual(['block b [c]', 'read the record of b']);
    expect(lines.blocked(K)).toEqual({ blocker: 'b', held: ['c'] });
  });

  it('ignores a release while the held delivery whose turn it is is under way', () => {
    const { carry } = blockedLead('b');
    carry({ kind: 'released', blocker: 'a' });
    expect(carry({ kind: 'released', blocker: 'b' })).toEqual([]);
  });

  it('removes the block once nothing is held, and sends what arrived meanwhile', () => {
    const { carry } = blockedLead();
    expect(carry({ kind: 'released', blocker: 'a' })).toEqual(['block removed']);
    expect(carry({ kind: 'arrived', item: fresh('b') })).toEqual(['send b']);
  });
});

describe('the plan is pure', () => {
  it('moves no line it is given: the line after an input is the one it returns', () => {
    const { lines } = blockedLead('b');
    const line = lines.get(K);
    const copy = structuredClone(line);
    const inputs: OwnerInput<TestItem>[] = [
      { kind: 'arrived', item: fresh('c') },
      { kind: 'released', blocker: 'a' },
      { kind: 'attempted', item: fresh('a'), done: delivered },
      { kind: 'blocker-read', block: { blocker: 'a', held: ['b'] }, record: null },
    ];
    expect(inputs.map((input) => blockOf(plan(line, input).line))).toEqual([
      { blocker: 'a', held: ['b', 'c'] },
      { blocker: 'b', held: [] },
      { blocker: 'a', held: ['b'] }, // not the attempt under way
      { blocker: 'a', held: ['b'] }, // memory is newer than the block read back
    ]);
    expect(line).toEqual(copy);
  });
});
