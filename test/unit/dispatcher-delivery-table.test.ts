import { HELD_FOR_PAUSED_ENDPOINT } from '../../src/shared/mongo/delivery-doc';
import { delivered, failed, heldRecord, K, LeadShell, waitingRecord } from '../support/lead-shell';
import { arrive, attempt, dead, noop, released, rowsOf, runRow, set, states, type Row } from '../support/lead-states';

// The lead owner's decisions for one lead's deliveries to one endpoint, as tables: each row a state
// of the lead's line, an input, what follows in order (sent, published, recorded, committed, the
// lead's block as stored, the partner's slot freed) and the block after it. Each row drives the real
// carry-out (carry-out.ts) over an in-memory shell (test/support/lead-shell.ts) whose answers come
// turns of the event loop later, as a server's would; states are reached through the same inputs
// (test/support/lead-states.ts; a block read back at assignment through `load`, as the owner reads it).
// This table: a line running, its attempts and a full partner queue; the held lines are in
// dispatcher-delivery-held-table.test.ts.

const table: Row[] = [
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
];

describe("a lead's deliveries to one endpoint", () => {
  it.each(rowsOf(table))('$title', runRow);

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
