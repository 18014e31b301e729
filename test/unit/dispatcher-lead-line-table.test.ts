import type { BlockState, LinePlan } from '../../src/dispatcher/lead-owner/lead-lines';
import { LineInputs } from '../support/line-inputs';

// A lead's line as a table: each row a state of the line, an input, and the outcome (what goes now,
// what is held, the block as stored) with the line's state after it. States are reached through
// the line's own inputs, so a row holds whatever the line does, not how it does it.
type Item = { id: string };
const K = 'pa-1:le-1';
const it_ = (id: string): Item => ({ id });

type State = 'free' | 'a running' | 'a running, b waiting' | 'a retrying, b held' | "b's held turn, c held";
const states: Record<State, (l: LineInputs<Item>) => void> = {
  free: () => undefined,
  'a running': (l) => l.arrive(K, it_('a')),
  'a running, b waiting': (l) => {
    l.arrive(K, it_('a'));
    l.arrive(K, it_('b'));
  },
  'a retrying, b held': (l) => {
    l.arrive(K, it_('a'));
    l.arrive(K, it_('b'));
    l.finished(K, 'a', 'retrying');
  },
  "b's held turn, c held": (l) => {
    l.arrive(K, it_('a'));
    l.arrive(K, it_('b'));
    l.finished(K, 'a', 'retrying');
    l.arrive(K, it_('c'));
    l.released(K, 'a');
  },
};

type Input =
  | { arrive: string }
  | { delivered: string }
  | { retrying: string }
  | { released: string }
  | { recordMissing: string }
  | 'resume';
const apply = (l: LineInputs<Item>, input: Input): LinePlan<Item> => {
  if (input === 'resume') return l.resumeBlocker(K);
  if ('arrive' in input) return l.arrive(K, it_(input.arrive));
  if ('delivered' in input) return l.finished(K, input.delivered, 'ended');
  if ('retrying' in input) return l.finished(K, input.retrying, 'retrying');
  if ('released' in input) return l.released(K, input.released);
  return l.recordMissing(K, input.recordMissing);
};

// [state, input, outcome, the line's block after (null: not blocked), lines left]
const table: [State, Input, LinePlan<Item>, BlockState | null, number][] = [
  ['free', { arrive: 'a' }, { run: it_('a') }, null, 1],
  ['free', { released: 'a' }, {}, null, 0],
  ['free', 'resume', {}, null, 0],
  ['a running', { arrive: 'a' }, {}, null, 1], // its own event again: it is under way
  ['a running', { arrive: 'b' }, {}, null, 1], // waits in memory, unrecorded
  ['a running', { delivered: 'a' }, {}, null, 0],
  ['a running', { retrying: 'a' }, { hold: [], block: { blocker: 'a', held: [] } }, { blocker: 'a', held: [] }, 1],
  ['a running', { delivered: 'x' }, {}, null, 1], // not the one under way
  ['a running, b waiting', { delivered: 'a' }, { run: it_('b') }, null, 1],
  [
    'a running, b waiting',
    { retrying: 'a' },
    { hold: [it_('b')], block: { blocker: 'a', held: ['b'] } },
    { blocker: 'a', held: ['b'] },
    1,
  ],
  [
    'a retrying, b held',
    { arrive: 'c' },
    { hold: [it_('c')], block: { blocker: 'a', held: ['b', 'c'] } },
    { blocker: 'a', held: ['b', 'c'] },
    1,
  ],
  ['a retrying, b held', { arrive: 'b' }, { hold: [it_('b')] }, { blocker: 'a', held: ['b'] }, 1], // held already
  ['a retrying, b held', { arrive: 'a' }, { run: it_('a') }, { blocker: 'a', held: ['b'] }, 1], // its record was lost
  ['a retrying, b held', { released: 'x' }, {}, { blocker: 'a', held: ['b'] }, 1],
  [
    'a retrying, b held',
    { released: 'a' },
    { runHeld: 'b', block: { blocker: 'b', held: [] } },
    { blocker: 'b', held: [] },
    1,
  ],
  ['a retrying, b held', 'resume', { runHeld: 'a' }, { blocker: 'a', held: ['b'] }, 1], // its endpoint resumed
  [
    "b's held turn, c held",
    { delivered: 'b' },
    { runHeld: 'c', block: { blocker: 'c', held: [] } },
    { blocker: 'c', held: [] },
    1,
  ],
  [
    "b's held turn, c held",
    { retrying: 'b' },
    { hold: [], block: { blocker: 'b', held: ['c'] } },
    { blocker: 'b', held: ['c'] },
    1,
  ],
  [
    "b's held turn, c held",
    { recordMissing: 'b' },
    { runHeld: 'c', block: { blocker: 'c', held: [] } },
    { blocker: 'c', held: [] },
    1,
  ],
  ["b's held turn, c held", { arrive: 'b' }, {}, { blocker: 'b', held: ['c'] }, 1], // comes again while read
];

describe("a lead's line: state x input -> outcome", () => {
  it.each(table.map(([state, input, outcome, blockAfter, size]) => ({ state, input, outcome, blockAfter, size })))(
    '$state, $input',
    ({ state, input, outcome, blockAfter, size }) => {
      const lines = new LineInputs<Item>();
      states[state](lines);
      expect(apply(lines, input)).toEqual(outcome);
      expect(lines.blocked(K)).toEqual(blockAfter);
      expect(lines.size).toBe(size);
    },
  );

  it('runs the event that came again in place of a held one whose record is missing', () => {
    const lines = new LineInputs<Item>();
    states["b's held turn, c held"](lines);
    lines.arrive(K, it_('b'));
    expect(lines.recordMissing(K, 'b')).toEqual({ run: it_('b') });
    expect(lines.blocked(K)).toEqual({ blocker: 'b', held: ['c'] });
  });
});
