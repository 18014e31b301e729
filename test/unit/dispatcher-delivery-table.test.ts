import type { Attempted } from '../../src/dispatcher/delivery-attempt';
import type { BlockState } from '../../src/dispatcher/lead-owner/lead-lines';
import { HELD_FOR_PAUSED_ENDPOINT } from '../../src/shared/mongo/delivery-doc';
import { delivered, endedRecord, failed, heldRecord, K, LeadShell, waitingRecord } from '../support/lead-shell';

// The lead owner's decisions for one lead's deliveries to one endpoint, as a table: each row a state
// of the lead's line, an input, what follows in order (sent, published, recorded, committed, the
// lead's block as stored, the partner's slot freed) and the block after it. Each row drives the real
// carry-out (carry-out.ts) over an in-memory shell (test/support/lead-shell.ts) whose answers come a
// turn of the event loop later, as a server's would; states are reached through the same inputs
// (a block read back at assignment through `load`, as the owner reads it).

const dead: Attempted = { ...failed, decision: { state: 'dead', attemptsMade: 5, attemptsLeft: 0 } };

type Input = (s: LeadShell) => void | Promise<void>;
const arrive =
  (...ids: string[]): Input =>
  (s) =>
    ids.forEach((id) => s.arrive(id));
const attempt =
  (id: string, done: Attempted | 'held'): Input =>
  (s) =>
    s.attempt(id, done);
const released =
  (blocker: string): Input =>
  (s) =>
    s.carry.released(s.lead, blocker);
const resume: Input = (s) => s.carry.resume(s.lead);
const load = (block: BlockState) => (s: LeadShell) => s.a.lines.load(K, block);

// A state reached through these inputs, in order, each run to its end.
const after =
  (...inputs: Input[]) =>
  async (s: LeadShell): Promise<void> => {
    for (const input of inputs) {
      await input(s);
      await s.quiet();
    }
  };

const states = {
  free: after(),
  'a running': after(arrive('a')),
  'a running, b waiting': after(arrive('a', 'b')),
  "a fresh round's r running": after((s) => s.arrive('r', waitingRecord('r'))),
  'a retrying': after(arrive('a'), attempt('a', failed)),
  'a retrying, b and c held': after(arrive('a', 'b'), attempt('a', failed), arrive('c')),
  "a released, b's held turn": after(
    arrive('a', 'b'),
    attempt('a', failed),
    (s) => void s.records.set('b', heldRecord('b', 'a')),
    released('a'),
  ),
  'a parked for its endpoint': after((s) => void (s.paused = true), arrive('a')),
  "read back, a's held turn": after(
    load({ blocker: 'a', held: [] }),
    (s) => void s.records.set('a', heldRecord('a', 'x')),
    resume,
  ),
  'a behind its earlier job': after((s) => void s.earlierJobs.set('a', () => undefined), arrive('a')),
  'block a <- [] read back': after(load({ blocker: 'a', held: [] })),
  'block a <- [b] read back': after(load({ blocker: 'a', held: ['b'] })),
  "read back, a's turn found on the retry path": after(
    load({ blocker: 'a', held: [] }),
    (s) => void s.records.set('a', { ...waitingRecord('a'), attempts_made: 1 }),
    resume,
  ),
};
type State = keyof typeof states;

const noop = () => undefined;
const set =
  (change: (s: LeadShell) => void, input: Input): Input =>
  (s) => {
    change(s);
    return input(s);
  };
const record = (id: string, doc: Parameters<LeadShell['records']['set']>[1]) => (s: LeadShell) =>
  void s.records.set(id, doc);
const blockerRead =
  (blocker: string, doc: Parameters<LeadShell['records']['set']>[1] | null): Input =>
  (s) =>
    s.carry.blockerRead(s.lead, blocker, doc);

// [state, input, what the input is, what follows in order, the block after (null: none)]
const table: [State, string, Input, string[], BlockState | null][] = [
  // Arrivals: one delivery of a lead at a time, in event order; the later ones wait in memory.
  ['free', 'a arrives', arrive('a'), ['send a'], null],
  ['a running', 'b arrives', arrive('b'), [], null],
  ['a running', 'its own event again', arrive('a'), [], null], // under way
  [
    'a retrying',
    'b arrives',
    arrive('b'),
    ['block a <- [b]', 'record b: new, held behind a', 'count held', 'commit b'],
    { blocker: 'a', held: ['b'] },
  ],
  [
    'a retrying',
    "a manager's fresh round of r arrives",
    (s) => s.arrive('r', waitingRecord('r')),
    ['block a <- [r]', 'record r: held behind a', 'count held', 'commit r'],
    { blocker: 'a', held: ['r'] },
  ],
  [
    'block a <- [b] read back',
    'c arrives',
    arrive('c'),
    ['block a <- [b, c]', 'record c: new, held behind a', 'count held', 'commit c'],
    { blocker: 'a', held: ['b', 'c'] },
  ],

  // A job of the same delivery still in the scheduler goes first, never a second token.
  [
    'free',
    'a arrives, an earlier job of it in the scheduler',
    set((s) => s.earlierJobs.set('a', noop), arrive('a')),
    [],
    null,
  ],
  ['a behind its earlier job', 'the earlier job leaves', (s) => s.earlierJobLeaves('a'), ['send a'], null],

  // Attempts: the block and the retry or dead task before the record; the partner's slot is free
  // once the task is out, before the record; what waited goes once the record is written.
  [
    'a running',
    'a delivered',
    attempt('a', delivered),
    ["free a's partner slot", 'record a: new, delivered', 'commit a'],
    null,
  ],
  [
    'a running',
    'a failed',
    attempt('a', failed),
    ['block a <- []', 'retry task a on retry1', "free a's partner slot", 'record a: new, queued', 'commit a'],
    { blocker: 'a', held: [] },
  ],
  [
    'a running',
    'a dead',
    attempt('a', dead),
    ['dead task a', "free a's partner slot", 'record a: new, dead', 'commit a'],
    null,
  ],
  [
    'a running, b waiting',
    'a delivered',
    attempt('a', delivered),
    ["free a's partner slot", 'record a: new, delivered', 'commit a', 'send b'],
    null,
  ],
  [
    'a running, b waiting',
    'a failed',
    attempt('a', failed),
    [
      'block a <- [b]',
      'retry task a on retry1',
      "free a's partner slot",
      'record a: new, queued',
      'commit a',
      'record b: new, held behind a',
      'count held',
      'commit b',
    ],
    { blocker: 'a', held: ['b'] },
  ],
  [
    "a fresh round's r running",
    'r delivered',
    attempt('r', delivered),
    ["free r's partner slot", 'record r: attempt added, delivered', 'commit r'],
    null,
  ],
  // A held one's event is committed already: its record is written in its lead's turn, before any
  // later block of its lead.
  [
    "a released, b's held turn",
    'b delivered',
    attempt('b', delivered),
    ["free b's partner slot", 'record b: attempt added, delivered', 'unblock'],
    null,
  ],
  [
    "a released, b's held turn",
    'b failed',
    attempt('b', failed),
    ['retry task b on retry1', "free b's partner slot", 'record b: attempt added, queued', 'block b <- []'],
    { blocker: 'b', held: [] },
  ],

  // A full partner queue: the delivery waits on the first retry tier, its task out before its record.
  [
    'free',
    "a and b arrive, the partner's queue full",
    set((s) => (s.queueFull = true), arrive('a', 'b')),
    [
      'retry task a on the first tier (queue_full)',
      'block a <- [b]',
      'record a: new, on the first retry tier',
      'commit a',
      'record b: new, held behind a',
      'count held',
      'commit b',
    ],
    { blocker: 'a', held: ['b'] },
  ],
  [
    'free',
    "a manager's fresh round of r arrives, the partner's queue full",
    set(
      (s) => (s.queueFull = true),
      (s) => s.arrive('r', waitingRecord('r')),
    ),
    ['retry task r on the first tier (queue_full)', 'block r <- []', 'record r: on the first retry tier', 'commit r'],
    { blocker: 'r', held: [] },
  ],
  // Refused while stopping: unrecorded, its offset uncommitted, for the next start.
  ['free', 'a arrives as the scheduler stops', set((s) => (s.stopping = true), arrive('a')), [], null],

  // A paused endpoint: held, neither attempted nor dead, and its lead waits for the resume.
  [
    'free',
    'a arrives, its endpoint paused',
    set((s) => (s.paused = true), arrive('a')),
    ['block a <- []', 'record a: new, parked for its endpoint', 'commit a', 'count held', 'park the lead'],
    { blocker: 'a', held: [] },
  ],
  [
    'a running',
    'its endpoint paused as its attempt would start',
    set((s) => (s.paused = true), attempt('a', delivered)),
    [
      'block a <- []',
      'record a: new, parked for its endpoint',
      'commit a',
      'count held',
      'park the lead',
      "free a's partner slot",
    ],
    { blocker: 'a', held: [] },
  ],
  [
    'a running',
    "a goes as its endpoint's probe and fails",
    attempt('a', 'held'),
    [
      'block a <- []',
      'record a: new, parked for its endpoint',
      'commit a',
      'count held',
      'park the lead',
      "free a's partner slot",
    ],
    { blocker: 'a', held: [] },
  ],
  [
    'a parked for its endpoint',
    "the endpoint resumes, and holds again as a's turn comes",
    set(record('a', heldRecord('a', HELD_FOR_PAUSED_ENDPOINT)), resume),
    ["read a's record", 'block a <- []', 'count held', 'park the lead'], // its record says so already
    { blocker: 'a', held: [] },
  ],
  ['free', 'the retry path parks the lead', (s) => s.carry.parked(s.lead), ['park the lead'], null],
  // The resume: the held blocker reaches the scheduler before the endpoint's release goes on.
  [
    'a parked for its endpoint',
    'the endpoint resumes',
    set((s) => ((s.paused = false), s.records.set('a', heldRecord('a', HELD_FOR_PAUSED_ENDPOINT))), resume),
    ["read a's record", 'send a'],
    { blocker: 'a', held: [] },
  ],
  ["read back, a's held turn", 'the endpoint resumes', resume, [], { blocker: 'a', held: [] }], // under way already
  ['free', 'the endpoint resumes', resume, [], null],

  // Releases: the blocker ended on the retry path; the next held one goes, its block saved alongside
  // (its record, written in its turn, waits for that block).
  ['a retrying', 'a released', released('a'), ['unblock'], null],
  ['a retrying', 'another released', released('zzz'), [], { blocker: 'a', held: [] }], // not its blocker
  [
    'a retrying, b and c held',
    'a released',
    set(record('b', heldRecord('b', 'a')), released('a')),
    ["read b's record", 'send b', 'block b <- [c]'],
    { blocker: 'b', held: ['c'] },
  ],
  ["a released, b's held turn", 'b released', released('b'), [], { blocker: 'b', held: [] }], // under way
  ['free', 'a released', released('a'), [], null],

  // A held one's turn, its record read.
  [
    'block a <- [] read back',
    "the endpoint resumes, a's record held",
    set(record('a', heldRecord('a', 'x')), resume),
    ["read a's record", 'send a'],
    { blocker: 'a', held: [] },
  ],
  // Its attempt recorded already (an owner lost the lead before the next block): it is on the retry
  // path, and the line waits for its release rather than send it twice.
  [
    'block a <- [] read back',
    "the endpoint resumes, a's record on the retry path",
    set(record('a', { ...waitingRecord('a'), attempts_made: 1 }), resume),
    ["read a's record", 'block a <- []'],
    { blocker: 'a', held: [] },
  ],
  ["read back, a's turn found on the retry path", 'a released', released('a'), ['unblock'], null],
  // Ended already (a crash after its attempt), or never written: the line moves on.
  [
    'block a <- [] read back',
    "the endpoint resumes, a's record delivered",
    set(record('a', endedRecord('a', 'delivered')), resume),
    ["read a's record", 'unblock'],
    null,
  ],
  ['block a <- [] read back', "the endpoint resumes, a's record missing", resume, ["read a's record", 'unblock'], null],
  // Never written, and its event came again while the record was read: that one is sent instead.
  [
    'block a <- [] read back',
    "the endpoint resumes, a's record missing, its event come again meanwhile",
    (s) => {
      const resumed = resume(s);
      s.arrive('a');
      return resumed;
    },
    ["read a's record", 'send a'],
    { blocker: 'a', held: [] },
  ],

  // A block read back at assignment, its blocker's record read.
  [
    'block a <- [b] read back',
    "blocker a's record read: dead",
    set(record('b', heldRecord('b', 'a')), blockerRead('a', endedRecord('a', 'dead'))),
    ["read b's record", 'send b', 'block b <- []'],
    { blocker: 'b', held: [] },
  ],
  [
    'block a <- [b] read back',
    "blocker a's record read: held (its turn had come)",
    set(record('a', heldRecord('a', 'z')), blockerRead('a', heldRecord('a', 'z'))),
    ["read a's record", 'send a'],
    { blocker: 'a', held: ['b'] },
  ],
  // Held for its endpoint: it goes with the endpoint's paced release, not at once.
  [
    'block a <- [b] read back',
    "blocker a's record read: parked for its endpoint",
    blockerRead('a', heldRecord('a', HELD_FOR_PAUSED_ENDPOINT)),
    ['park the lead'],
    { blocker: 'a', held: ['b'] },
  ],
  // On the retry path (its end sends `released`), or never recorded (its event comes again).
  [
    'block a <- [b] read back',
    "blocker a's record read: on the retry path",
    blockerRead('a', waitingRecord('a')),
    [],
    { blocker: 'a', held: ['b'] },
  ],
  [
    'block a <- [b] read back',
    "blocker a's record read: none",
    blockerRead('a', null),
    [],
    { blocker: 'a', held: ['b'] },
  ],
];

describe("a lead's deliveries to one endpoint", () => {
  const rows = table.map(([state, what, input, expected, block]) => ({
    title: `${state}; ${what}`,
    state,
    input,
    expected,
    block,
  }));
  it.each(rows)('$title', async ({ state, input, expected, block }) => {
    const s = new LeadShell();
    await states[state](s);
    s.log.length = 0;
    await input(s);
    await s.quiet();
    expect(s.log).toEqual(expected);
    expect(s.a.lines.blocked(K)).toEqual(block);
  });

  // Rules of when, not what.
  it('moves the line as an attempt is answered, so a release that comes before its task is out finds the blocker', async () => {
    const s = new LeadShell();
    await states['a running'](s);
    s.attempt('a', failed);
    await new Promise((r) => setImmediate(r)); // answered; its task not out yet
    expect(s.log).toEqual(['send a']);
    expect(s.a.lines.blocked(K)).toEqual({ blocker: 'a', held: [] });
    await released('a')(s);
    await s.quiet();
    expect(s.a.lines.blocked(K)).toBeNull();
  });

  it('moves the line for a delivery the scheduler refused only once its retry task is out', async () => {
    const s = new LeadShell();
    s.queueFull = true;
    s.arrive('a');
    expect(s.a.lines.get(K)).toMatchObject({ state: 'running', running: 'a' });
    await s.quiet();
    expect(s.a.lines.blocked(K)).toEqual({ blocker: 'a', held: [] });
  });

  it("sends a parked lead's blocker in the resume itself, so the endpoint's paced release waits for it", async () => {
    const s = new LeadShell();
    await states['a parked for its endpoint'](s);
    s.paused = false;
    s.records.set('a', heldRecord('a', HELD_FOR_PAUSED_ENDPOINT));
    await s.carry.resume(s.lead);
    expect(s.log.at(-1)).toBe('send a');
  });

  it('never makes another lead wait', async () => {
    const s = new LeadShell();
    await states['a retrying'](s);
    s.log.length = 0;
    s.arrive('x', null, 'le-2');
    expect(s.log).toEqual(['send x']);
  });
});
