import {
  FREE,
  transition,
  type LineEffects,
  type LineInput,
  type LineState,
} from '../../src/dispatcher/lead-owner/lead-lines';

// A lead's line as a table: each row a state of the line, an input, what the line asks for (what
// goes now, what is held, the block as stored) and the line's state after it.
type Item = { id: string };
const it_ = (id: string): Item => ({ id });

const sending = (running: string, ...waiting: string[]): LineState<Item> => ({
  kind: 'sending',
  running,
  waiting: waiting.map(it_),
});
// Blocked by `blocker`; `turn`: the blocker's own attempt is under way (replay: its event came again).
const blocked = (blocker: string, held: string[], turn?: { replay: Item | null }): LineState<Item> => ({
  kind: 'blocked',
  blocker,
  held,
  turn: turn ?? null,
});
const turn = { replay: null };

const arrive = (id: string): LineInput<Item> => ({ kind: 'arrive', item: it_(id) });
const delivered = (id: string): LineInput<Item> => ({ kind: 'finished', id, outcome: 'ended' });
const retrying = (id: string): LineInput<Item> => ({ kind: 'finished', id, outcome: 'retrying' });
const released = (blocker: string): LineInput<Item> => ({ kind: 'released', blocker });
const recordMissing = (id: string): LineInput<Item> => ({ kind: 'record-missing', id });
const load = (blocker: string, held: string[]): LineInput<Item> => ({ kind: 'load', block: { blocker, held } });
const resume: LineInput<Item> = { kind: 'resume' };

// [name, state, input, effects, state after]
const table: [string, LineState<Item>, LineInput<Item>, LineEffects<Item>, LineState<Item>][] = [
  ['the first delivery goes at once', FREE, arrive('a'), { run: it_('a') }, sending('a')],
  ['a release of no blocker', FREE, released('a'), {}, FREE],
  ['nothing to resume', FREE, resume, {}, FREE],
  ['a block read back', FREE, load('a', ['b']), {}, blocked('a', ['b'])],
  ['its own event again: under way', sending('a'), arrive('a'), {}, sending('a')],
  ['a later one waits in memory, unrecorded', sending('a'), arrive('b'), {}, sending('a', 'b')],
  ['waiting already', sending('a', 'b'), arrive('b'), {}, sending('a', 'b')],
  ['delivered: the line is free', sending('a'), delivered('a'), {}, FREE],
  ['delivered: the next one goes', sending('a', 'b', 'c'), delivered('a'), { run: it_('b') }, sending('b', 'c')],
  [
    'to the retry path: it blocks and the waiting ones are held',
    sending('a', 'b'),
    retrying('a'),
    { hold: [it_('b')], block: { blocker: 'a', held: ['b'] } },
    blocked('a', ['b']),
  ],
  ['not the one under way', sending('a'), delivered('x'), {}, sending('a')],
  ['memory is newer than a block read back', sending('a'), load('old', []), {}, sending('a')],
  [
    'behind a blocker: held and listed in its block',
    blocked('a', ['b']),
    arrive('c'),
    { hold: [it_('c')], block: { blocker: 'a', held: ['b', 'c'] } },
    blocked('a', ['b', 'c']),
  ],
  ['held already: its record again', blocked('a', ['b']), arrive('b'), { hold: [it_('b')] }, blocked('a', ['b'])],
  [
    "the blocker's event again (its record lost)",
    blocked('a', ['b']),
    arrive('a'),
    { run: it_('a') },
    blocked('a', ['b'], turn),
  ],
  ['a release of another', blocked('a', ['b']), released('x'), {}, blocked('a', ['b'])],
  [
    'the blocker ended: the next held one goes',
    blocked('a', ['b', 'c']),
    released('a'),
    { runHeld: 'b', block: { blocker: 'b', held: ['c'] } },
    blocked('b', ['c'], turn),
  ],
  ['the last blocker ended: the line is free', blocked('a', []), released('a'), { block: null }, FREE],
  ['its endpoint resumed', blocked('a', ['b']), resume, { runHeld: 'a' }, blocked('a', ['b'], turn)],
  ['resumed while under way', blocked('a', ['b'], turn), resume, {}, blocked('a', ['b'], turn)],
  ['a release while its turn is under way', blocked('a', ['b'], turn), released('a'), {}, blocked('a', ['b'], turn)],
  [
    "a held turn delivered: the next held one's turn",
    blocked('b', ['c'], turn),
    delivered('b'),
    { runHeld: 'c', block: { blocker: 'c', held: [] } },
    blocked('c', [], turn),
  ],
  [
    'a held turn back on the retry path',
    blocked('b', ['c'], turn),
    retrying('b'),
    { hold: [], block: { blocker: 'b', held: ['c'] } },
    blocked('b', ['c']),
  ],
  [
    "a held turn's record missing: the line moves on",
    blocked('b', ['c'], turn),
    recordMissing('b'),
    { runHeld: 'c', block: { blocker: 'c', held: [] } },
    blocked('c', [], turn),
  ],
  [
    "a held turn's event, come again while its record was read",
    blocked('b', ['c'], turn),
    arrive('b'),
    {},
    blocked('b', ['c'], { replay: it_('b') }),
  ],
  [
    "a held turn's record missing: its event that came again goes in its place",
    blocked('b', ['c'], { replay: it_('b') }),
    recordMissing('b'),
    { run: it_('b') },
    blocked('b', ['c'], turn),
  ],
  ['no longer its turn', blocked('c', [], turn), recordMissing('b'), {}, blocked('c', [], turn)],
];

describe("a lead's line: state x input -> effects and state after", () => {
  it.each(table.map(([name, state, input, effects, after]) => ({ name, state, input, effects, after })))(
    '$name',
    ({ state, input, effects, after }) => {
      expect(transition(state, input)).toEqual({ state: after, effects });
    },
  );

  it('moves no state it is given', () => {
    const state = blocked('a', ['b']);
    const copy = structuredClone(state);
    transition(state, arrive('c'));
    transition(state, released('a'));
    expect(state).toEqual(copy);
  });
});
