import type { Attempted } from '../../src/dispatcher/delivery-attempt';
import { plan as planOf, type OwnerInput } from '../../src/dispatcher/lead-owner/plan';
import type { BlockState } from '../../src/dispatcher/lead-owner/lead-lines';
import { HELD_FOR_PAUSED_ENDPOINT } from '../../src/shared/mongo/delivery-doc';
import {
  delivered,
  endedRecord,
  failed,
  fresh,
  heldRecord,
  heldTurn,
  K,
  outcomes,
  planner,
  round,
  waitingRecord,
  type TestItem,
} from '../support/lead-plan';

// The lead owner's decisions for one lead's deliveries to one endpoint, as a table: each row a state
// of the lead's line, an input, what follows in order (sent, published, recorded, committed, the
// lead's block as stored) and the block after it. States are reached through the owner's own inputs
// (a block read back at assignment through `load`, as the owner reads it), so a row holds whatever
// the owner does, not how its steps are named. Carry-out (carry-out.ts) does what a row lists in its
// order; every write waits for the lead's writes decided before it.

const dead: Attempted = { ...failed, decision: { state: 'dead', attemptsMade: 5, attemptsLeft: 0 } };
const parkedTurn = heldTurn('a', HELD_FOR_PAUSED_ENDPOINT);

type Planner = ReturnType<typeof planner>;
// An input and everything it decides, nested decisions included.
const apply = (p: Planner, input: OwnerInput<TestItem>): string[] => outcomes(p.plan, p.plan(input));
const arrive = (id: string): OwnerInput<TestItem> => ({ kind: 'arrived', item: fresh(id) });
const attempted = (item: TestItem, done: Attempted): OwnerInput<TestItem> => ({ kind: 'attempted', item, done });

// A state reached through these inputs, in order.
const after =
  (...inputs: OwnerInput<TestItem>[]) =>
  (p: Planner): void =>
    inputs.forEach((input) => apply(p, input));

const states = {
  free: after(),
  'a running': after(arrive('a')),
  'a running, b waiting': after(arrive('a'), arrive('b')),
  "a fresh round's r running": after({ kind: 'arrived', item: round('r') }),
  "a's record parked for its endpoint, running": after({ kind: 'arrived', item: parkedTurn }),
  'a retrying': after(arrive('a'), attempted(fresh('a'), failed)),
  'a retrying, b and c held': after(arrive('a'), arrive('b'), attempted(fresh('a'), failed), arrive('c')),
  "a released, b's held turn": after(arrive('a'), arrive('b'), attempted(fresh('a'), failed), {
    kind: 'released',
    blocker: 'a',
  }),
  'a parked for its endpoint': after(arrive('a'), { kind: 'paused', item: fresh('a') }),
  'block a <- [b] read back': (p: Planner) => p.lines.load(K, { blocker: 'a', held: ['b'] }),
  "read back, a's held turn": (p: Planner) => {
    p.lines.load(K, { blocker: 'a', held: [] });
    apply(p, { kind: 'resume' });
  },
  "read back, a's held turn, its event come again": (p: Planner) => {
    p.lines.load(K, { blocker: 'a', held: [] });
    apply(p, { kind: 'resume' });
    apply(p, arrive('a'));
  },
  "read back, a's turn found on the retry path": (p: Planner) => {
    p.lines.load(K, { blocker: 'a', held: [] });
    apply(p, { kind: 'resume' });
    apply(p, { kind: 'turn-read', id: 'a', record: { ...waitingRecord('a'), attempts_made: 1 } });
  },
};
type State = keyof typeof states;

// [state, input, what follows in order, the block after (null: none)]
const table: [State, OwnerInput<TestItem>, string[], BlockState | null][] = [
  // Arrivals: one delivery of a lead at a time, in event order; the later ones wait in memory.
  ['free', arrive('a'), ['send a'], null],
  ['a running', arrive('b'), [], null],
  ['a running', arrive('a'), [], null], // its own event again: it is under way
  [
    'a retrying',
    arrive('b'),
    ['block a <- [b]', 'record b: new, held behind a', 'count b held', 'commit b'],
    { blocker: 'a', held: ['b'] },
  ],
  [
    'a retrying',
    { kind: 'arrived', item: round('r') },
    ['block a <- [r]', 'record r: held behind a', 'count r held', 'commit r'],
    { blocker: 'a', held: ['r'] },
  ],
  [
    'block a <- [b] read back',
    arrive('c'),
    ['block a <- [b, c]', 'record c: new, held behind a', 'count c held', 'commit c'],
    { blocker: 'a', held: ['b', 'c'] },
  ],

  // Sends: a job of the same delivery still in the scheduler goes first, never a second token.
  ['a running', { kind: 'send', item: fresh('a'), earlierJob: false }, ['send a'], null],
  ['a running', { kind: 'send', item: fresh('a'), earlierJob: true }, ["wait for a's earlier job", 'send a'], null],

  // Attempts: the retry or dead task before the block, the block before the record, the partner's
  // slot free before the record is written; what waited goes once the record is written.
  [
    'a running',
    attempted(fresh('a'), delivered),
    ["free a's partner slot", 'record a: new, delivered', 'commit a'],
    null,
  ],
  [
    'a running',
    attempted(fresh('a'), failed),
    ['retry task a on retry1', 'block a <- []', "free a's partner slot", 'record a: new, queued', 'commit a'],
    { blocker: 'a', held: [] },
  ],
  [
    'a running',
    attempted(fresh('a'), dead),
    ['dead task a', "free a's partner slot", 'record a: new, dead', 'commit a'],
    null,
  ],
  [
    'a running, b waiting',
    attempted(fresh('a'), delivered),
    ["free a's partner slot", 'record a: new, delivered', 'commit a', 'send b'],
    null,
  ],
  [
    'a running, b waiting',
    attempted(fresh('a'), failed),
    [
      'retry task a on retry1',
      'block a <- [b]',
      "free a's partner slot",
      'record a: new, queued',
      'commit a',
      'record b: new, held behind a',
      'count b held',
      'commit b',
    ],
    { blocker: 'a', held: ['b'] },
  ],
  [
    "a fresh round's r running",
    attempted(round('r'), delivered),
    ["free r's partner slot", 'record r: attempt added, delivered', 'commit r'],
    null,
  ],
  // A held one's event is committed already: its record is written in its lead's turn, before any
  // later block of its lead.
  [
    "a released, b's held turn",
    attempted(heldTurn('b', 'a'), delivered),
    ["record b: delivered, in its lead's turn", 'unblock', "free b's partner slot", 'commit b'],
    null,
  ],
  [
    "a released, b's held turn",
    attempted(heldTurn('b', 'a'), failed),
    [
      'retry task b on retry1',
      "record b: queued, in its lead's turn",
      'block b <- []',
      "free b's partner slot",
      'commit b',
    ],
    { blocker: 'b', held: [] },
  ],

  // A full partner queue: the delivery waits on the first retry tier, its task out before its record.
  [
    'a running, b waiting',
    { kind: 'refused', item: fresh('a'), stopping: false, dueAt: 5000 },
    [
      'retry task a on the first tier (queue full)',
      'block a <- [b]',
      'record a: new, on the first retry tier',
      'commit a',
      'record b: new, held behind a',
      'count b held',
      'commit b',
    ],
    { blocker: 'a', held: ['b'] },
  ],
  // Refused while stopping: unrecorded, its offset uncommitted, for the next start.
  ['a running', { kind: 'refused', item: fresh('a'), stopping: true, dueAt: 5000 }, [], null],
  [
    "a fresh round's r running",
    { kind: 'set-aside', item: round('r'), how: { dueAt: new Date(5000) } },
    ['block r <- []', 'record r: on the first retry tier', 'commit r'],
    { blocker: 'r', held: [] },
  ],

  // A paused endpoint: held, neither attempted nor dead, and its lead waits for the resume.
  [
    'a running',
    { kind: 'paused', item: fresh('a') },
    ['block a <- []', 'record a: new, parked for its endpoint', 'commit a', 'count a parked', 'park the lead'],
    { blocker: 'a', held: [] },
  ],
  [
    "a's record parked for its endpoint, running",
    { kind: 'set-aside', item: parkedTurn, how: { heldBy: HELD_FOR_PAUSED_ENDPOINT } },
    ['block a <- []', 'commit a'], // its record says so already
    { blocker: 'a', held: [] },
  ],
  ['free', { kind: 'parked' }, ['park the lead'], null],
  // The resume: the held blocker reaches the scheduler before the endpoint's release goes on.
  ['a parked for its endpoint', { kind: 'resume' }, ["read a's record"], { blocker: 'a', held: [] }],
  ["read back, a's held turn", { kind: 'resume' }, [], { blocker: 'a', held: [] }], // under way already
  ['free', { kind: 'resume' }, [], null],

  // Releases: the blocker ended on the retry path; the next held one goes, its block saved first.
  ['a retrying', { kind: 'released', blocker: 'a' }, ['unblock'], null],
  ['a retrying', { kind: 'released', blocker: 'zzz' }, [], { blocker: 'a', held: [] }], // not its blocker
  [
    'a retrying, b and c held',
    { kind: 'released', blocker: 'a' },
    ['block b <- [c]', "read b's record"],
    { blocker: 'b', held: ['c'] },
  ],
  ["a released, b's held turn", { kind: 'released', blocker: 'b' }, [], { blocker: 'b', held: [] }], // under way
  ['free', { kind: 'released', blocker: 'a' }, [], null],

  // A held one's turn, its record read.
  [
    "read back, a's held turn",
    { kind: 'turn-read', id: 'a', record: heldRecord('a', 'x') },
    ['send a from its held record'],
    { blocker: 'a', held: [] },
  ],
  // Its attempt recorded already (an owner lost the lead before the next block): it is on the retry
  // path, and the line waits for its release rather than send it twice.
  [
    "read back, a's held turn",
    { kind: 'turn-read', id: 'a', record: { ...waitingRecord('a'), attempts_made: 1 } },
    ['block a <- []'],
    { blocker: 'a', held: [] },
  ],
  ["read back, a's turn found on the retry path", { kind: 'released', blocker: 'a' }, ['unblock'], null],
  // Ended already (a crash after its attempt), or never written: the line moves on.
  [
    "read back, a's held turn",
    { kind: 'turn-read', id: 'a', record: endedRecord('a', 'delivered') },
    ['unblock'],
    null,
  ],
  ["read back, a's held turn", { kind: 'turn-read', id: 'a', record: null }, ['unblock'], null],
  // Never written, and its event came again while the record was read: that one is sent instead.
  [
    "read back, a's held turn, its event come again",
    { kind: 'turn-read', id: 'a', record: null },
    ['send a'],
    { blocker: 'a', held: [] },
  ],

  // A block read back at assignment, its blocker's record read.
  [
    'block a <- [b] read back',
    { kind: 'blocker-read', blocker: 'a', record: endedRecord('a', 'dead') },
    ['block b <- []', "read b's record"],
    { blocker: 'b', held: [] },
  ],
  [
    'block a <- [b] read back',
    { kind: 'blocker-read', blocker: 'a', record: heldRecord('a', 'z') },
    ["read a's record"],
    { blocker: 'a', held: ['b'] },
  ],
  // Held for its endpoint: it goes with the endpoint's paced release, not at once.
  [
    'block a <- [b] read back',
    { kind: 'blocker-read', blocker: 'a', record: heldRecord('a', HELD_FOR_PAUSED_ENDPOINT) },
    ['park the lead'],
    { blocker: 'a', held: ['b'] },
  ],
  // On the retry path (its end sends `released`), or never recorded (its event comes again).
  [
    'block a <- [b] read back',
    { kind: 'blocker-read', blocker: 'a', record: waitingRecord('a') },
    [],
    { blocker: 'a', held: ['b'] },
  ],
  ['block a <- [b] read back', { kind: 'blocker-read', blocker: 'a', record: null }, [], { blocker: 'a', held: ['b'] }],
];

// An input as a row's title reads it.
function inputName(input: OwnerInput<TestItem>): string {
  switch (input.kind) {
    case 'arrived':
      return `${input.item.id} arrives${input.item.doc ? ' (a record it has)' : ''}`;
    case 'send':
      return `${input.item.id}'s turn${input.earlierJob ? ', an earlier job of it in the scheduler' : ''}`;
    case 'refused':
      return `the scheduler refuses ${input.item.id}${input.stopping ? ' as it stops' : ' (queue full)'}`;
    case 'paused':
      return `${input.item.id}'s endpoint paused`;
    case 'attempted':
      return `${input.item.id} attempted: ${input.done.decision.state}`;
    case 'set-aside':
      return `${input.item.id} set aside ${'dueAt' in input.how ? 'for the first tier' : `held by ${input.how.heldBy}`}`;
    case 'recorded':
      return 'recorded';
    case 'released':
      return `${input.blocker} released`;
    case 'parked':
      return 'parked by the retry path';
    case 'resume':
      return 'the endpoint resumes';
    case 'blocker-read':
      return `blocker ${input.blocker}'s record read: ${input.record?.state ?? 'none'}${input.record?.held_by ? `, held by ${input.record.held_by}` : ''}`;
    case 'turn-read':
      return `${input.id}'s record read: ${input.record?.state ?? 'none'}${input.record?.held_by ? `, held by ${input.record.held_by}` : ''}${input.record?.attempts_made ? ', attempted' : ''}`;
  }
}

describe("a lead's deliveries to one endpoint", () => {
  const rows = table.map(([state, input, expected, block]) => ({
    title: `${state}; ${inputName(input)}`,
    state,
    input,
    expected,
    block,
  }));
  it.each(rows)('$title', ({ state, input, expected, block }) => {
    const p = planner();
    states[state](p);
    expect(apply(p, input)).toEqual(expected);
    expect(p.lines.blocked(K)).toEqual(block);
  });

  // Three rules of when, not what: a row plans its nested decisions at once, carry-out does not.
  it('moves the line as it decides an attempt, so a release that comes before any step is done finds the blocker', () => {
    const p = planner();
    apply(p, arrive('a'));
    p.plan(attempted(fresh('a'), failed)); // planned, nothing carried out
    expect(p.lines.blocked(K)).toEqual({ blocker: 'a', held: [] });
    expect(p.plan({ kind: 'released', blocker: 'a' })).toEqual([{ do: 'save-block', block: null }]);
  });

  it('moves the line for a delivery the scheduler refused only once its retry task is out', () => {
    const p = planner();
    apply(p, arrive('a'));
    const [fork] = p.plan({ kind: 'refused', item: fresh('a'), stopping: false, dueAt: 5000 });
    expect(p.lines.blocked(K)).toBeNull();
    // The task, then the decision that sets it aside (and moves the line), in one piece of their own.
    expect(fork).toMatchObject({ do: 'fork', steps: [{ do: 'publish-overflow' }, { do: 'decide' }] });
  });

  it("sends a parked lead's blocker in the resume itself, so the endpoint's paced release waits for it", () => {
    const p = planner();
    states['a parked for its endpoint'](p);
    expect(p.plan({ kind: 'resume' })).toEqual([{ do: 'read-turn', id: 'a' }]); // not forked
  });

  it('never makes another lead wait', () => {
    const p = planner();
    states['a retrying'](p);
    expect(outcomes(p.plan, planOf(p.lines.get('pa-1:le-2'), arrive('x')).steps)).toEqual(['send x']);
  });
});
