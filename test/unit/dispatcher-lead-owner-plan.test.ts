import type { Step } from '../../src/dispatcher/lead-owner/plan';
import {
  decision,
  delivered,
  failed,
  fresh,
  heldTurn,
  K,
  planner,
  round,
  shape,
  type TestItem,
} from '../support/lead-plan';

// The lead owner's ordering rules, as the pure plan states them (src/dispatcher/lead-owner/plan.ts):
// the steps it lists are carried out in that order by carry-out.ts.

const index = (steps: Step<TestItem>[], kind: Step<TestItem>['do']): number => steps.findIndex((s) => s.do === kind);

describe('one delivery of a lead at a time, in event order', () => {
  it('sends the first delivery of a lead at once and keeps the later ones in memory until it is recorded', () => {
    const { plan } = planner();
    expect(shape(plan({ kind: 'arrived', item: fresh('a') }))).toEqual(['send']);
    expect(plan({ kind: 'arrived', item: fresh('b') })).toEqual([]);
    expect(plan({ kind: 'arrived', item: fresh('c') })).toEqual([]);
  });

  it('sends the next delivery of the lead only once the one before is recorded', () => {
    const { plan } = planner();
    plan({ kind: 'arrived', item: fresh('a') });
    plan({ kind: 'arrived', item: fresh('b') });
    const steps = plan({ kind: 'attempted', item: fresh('a'), done: delivered });
    expect(shape(steps)).toEqual(['publish-task', 'leave-slot', 'after-line', 'write', 'settle', 'decide:recorded']);
    expect(plan(decision(steps, 'recorded'))).toEqual([{ do: 'send', item: fresh('b') }]);
  });

  it('never makes another lead or another endpoint wait', () => {
    const { lines, plan } = planner();
    plan({ kind: 'arrived', item: fresh('a') });
    plan({ kind: 'attempted', item: fresh('a'), done: failed });
    expect(lines.blocked(K)?.blocker).toBe('a');
    expect(shape(plan({ kind: 'arrived', item: fresh('b') }))).toEqual([
      'save-block',
      'fork(after-line, write, count-held, settle)',
    ]);
    const other = planner();
    expect(shape(other.plan({ kind: 'arrived', item: fresh('x') }))).toEqual(['send']);
  });
});

describe('an attempt that failed', () => {
  it('moves the line before the retry task exists, so that its release finds it the blocker', () => {
    const { lines, plan } = planner();
    plan({ kind: 'arrived', item: fresh('a') });
    plan({ kind: 'arrived', item: fresh('b') });
    const steps = plan({ kind: 'attempted', item: fresh('a'), done: failed });
    expect(lines.blocked(K)).toEqual({ blocker: 'a', held: ['b'] });
    expect(steps[0]).toEqual({ do: 'publish-task', item: fresh('a'), done: failed });
    // However soon the release comes (before any step is carried out), it finds `a` blocking.
    expect(shape(plan({ kind: 'released', blocker: 'a' }))).toEqual(['save-block', 'fork(read-turn)']);
  });

  it('saves the block and publishes the task before the record: a crash in between replays the event', () => {
    const { plan } = planner();
    plan({ kind: 'arrived', item: fresh('a') });
    const steps = plan({ kind: 'attempted', item: fresh('a'), done: failed });
    expect(shape(steps)).toEqual([
      'publish-task',
      'save-block',
      'leave-slot',
      'after-line',
      'write',
      'settle',
      'decide:recorded',
    ]);
    expect(steps[1]).toEqual({ do: 'save-block', block: { blocker: 'a', held: [] } });
    expect(steps[4]).toEqual({ do: 'write', item: fresh('a'), write: { insert: failed } });
  });

  it('lets the partner slot go once the task is out, before the record is written', () => {
    const { plan } = planner();
    plan({ kind: 'arrived', item: fresh('a') });
    const steps = plan({ kind: 'attempted', item: fresh('a'), done: failed });
    expect(index(steps, 'leave-slot')).toBeGreaterThan(index(steps, 'publish-task'));
    expect(index(steps, 'leave-slot')).toBeLessThan(index(steps, 'write'));
  });

  it('holds the deliveries that waited behind it only once its record is written, behind it', () => {
    const { plan } = planner();
    plan({ kind: 'arrived', item: fresh('a') });
    plan({ kind: 'arrived', item: fresh('b') });
    const steps = plan({ kind: 'attempted', item: fresh('a'), done: failed });
    expect(index(steps, 'settle')).toBeLessThan(index(steps, 'decide'));
    const later = plan(decision(steps, 'recorded'));
    expect(shape(later)).toEqual(['fork(after-line, write, count-held, settle)']);
    expect(later[0]).toMatchObject({ steps: [{}, { write: { insert: { heldBy: 'a' } } }, {}, {}] });
  });

  it("adds a fresh round's attempt to the record it has", () => {
    const { plan } = planner();
    plan({ kind: 'arrived', item: round('r') });
    const steps = plan({ kind: 'attempted', item: round('r'), done: delivered });
    expect(steps[index(steps, 'write')]).toEqual({ do: 'write', item: round('r'), write: { attempt: delivered } });
  });
});

describe('held deliveries', () => {
  it('saves the block that lists a held delivery before its record says held', () => {
    const { plan } = planner();
    plan({ kind: 'arrived', item: fresh('a') });
    plan({ kind: 'attempted', item: fresh('a'), done: failed });
    const steps = plan({ kind: 'arrived', item: fresh('b') });
    expect(steps[0]).toEqual({ do: 'save-block', block: { blocker: 'a', held: ['b'] } });
    // The held record waits for the lead's writes so far (that block) and is then written.
    expect(steps[1]).toEqual({
      do: 'fork',
      steps: [
        { do: 'after-line', item: fresh('b'), what: 'hold' },
        { do: 'write', item: fresh('b'), write: { insert: { heldBy: 'a' } } },
        { do: 'count-held', item: fresh('b') },
        { do: 'settle', item: fresh('b') },
      ],
    });
  });

  it('marks a fresh round held on the record it has', () => {
    const { plan } = planner();
    plan({ kind: 'arrived', item: fresh('a') });
    plan({ kind: 'attempted', item: fresh('a'), done: failed });
    const [, hold] = plan({ kind: 'arrived', item: round('r') });
    expect(hold).toMatchObject({ steps: [{}, { write: { hold: 'a' } }, {}, {}] });
  });

  it("writes a held delivery's record in its lead's turn, before any later block of its lead", () => {
    const { plan } = planner();
    plan({ kind: 'arrived', item: fresh('a') });
    plan({ kind: 'arrived', item: fresh('b') });
    plan({ kind: 'attempted', item: fresh('a'), done: failed });
    plan({ kind: 'released', blocker: 'a' });
    plan({ kind: 'turn-read', id: 'b', record: heldTurn('b', 'a').doc });
    const steps = plan({ kind: 'attempted', item: heldTurn('b', 'a'), done: delivered });
    expect(shape(steps)).toEqual([
      'publish-task',
      'record-in-turn',
      'save-block',
      'leave-slot',
      'after-line',
      'settle',
      'decide:recorded',
    ]);
    expect(steps[2]).toEqual({ do: 'save-block', block: null });
  });

  it('lets the next held delivery go when the blocker is released, its block saved first', () => {
    const { lines, plan } = planner();
    plan({ kind: 'arrived', item: fresh('a') });
    plan({ kind: 'arrived', item: fresh('b') });
    plan({ kind: 'arrived', item: fresh('c') });
    plan({ kind: 'attempted', item: fresh('a'), done: failed });
    expect(plan({ kind: 'released', blocker: 'zzz' })).toEqual([]); // not its blocker
    expect(plan({ kind: 'released', blocker: 'a' })).toEqual([
      { do: 'save-block', block: { blocker: 'b', held: ['c'] } },
      { do: 'fork', steps: [{ do: 'read-turn', id: 'b' }] },
    ]);
    expect(lines.blocked(K)).toEqual({ blocker: 'b', held: ['c'] });
  });

  it('ignores a release while the held delivery whose turn it is is under way', () => {
    const { plan } = planner();
    plan({ kind: 'arrived', item: fresh('a') });
    plan({ kind: 'arrived', item: fresh('b') });
    plan({ kind: 'attempted', item: fresh('a'), done: failed });
    plan({ kind: 'released', blocker: 'a' });
    expect(plan({ kind: 'released', blocker: 'b' })).toEqual([]);
  });

  it('removes the block once nothing is held, and sends what arrived meanwhile', () => {
    const { plan } = planner();
    plan({ kind: 'arrived', item: fresh('a') });
    plan({ kind: 'attempted', item: fresh('a'), done: failed });
    expect(plan({ kind: 'released', blocker: 'a' })).toEqual([{ do: 'save-block', block: null }]);
    expect(shape(plan({ kind: 'arrived', item: fresh('b') }))).toEqual(['send']);
  });
});
