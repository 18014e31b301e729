import { HELD_FOR_PAUSED_ENDPOINT } from '../../src/shared/mongo/delivery-doc';
import { delivered, endedRecord, heldRecord, waitingRecord } from '../support/lead-shell';
import {
  attempt,
  arrive,
  blockerRead,
  record,
  released,
  resume,
  rowsOf,
  runRow,
  set,
  type Row,
} from '../support/lead-states';

// The lead owner's decisions for one lead's deliveries to one endpoint, as tables: each row a state
// of the lead's line, an input, what follows in order (sent, published, recorded, committed, the
// lead's block as stored, the partner's slot freed) and the block after it. Each row drives the real
// carry-out (carry-out.ts) over an in-memory shell (test/support/lead-shell.ts) whose answers come
// turns of the event loop later, as a server's would; states are reached through the same inputs
// (test/support/lead-states.ts; a block read back at assignment through `load`, as the owner reads it).
// This table: a paused endpoint, releases, held turns and blocks read back; the running lines are
// in dispatcher-delivery-table.test.ts.

// Held as its attempt would start: parked before its partner's slot is free.
const parkedInItsSlot = [
  'block a <- []',
  'record a: new, parked for its endpoint',
  'commit a',
  'count held',
  'park the lead',
  "free a's partner slot",
];

const table: Row[] = [
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
    parkedInItsSlot,
    { blocker: 'a', held: [] },
  ],
  [
    'a running',
    "a goes as its endpoint's probe and fails",
    attempt('a', 'held'),
    parkedInItsSlot,
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

describe("a lead's held deliveries to one endpoint", () => {
  it.each(rowsOf(table))('$title', runRow);
});
