import type { Attempted } from '../../src/dispatcher/delivery-attempt';
import type { BlockState } from '../../src/dispatcher/lead-owner/lead-lines';
import type { DeliveryDoc } from '../../src/shared/mongo/delivery-doc';
import { failed, heldRecord, K, LeadShell, waitingRecord } from './lead-shell';

// The inputs and states of the delivery tables (test/unit/dispatcher-delivery-*table.test.ts): each
// input drives the real carry-out in a LeadShell, and each state is reached through inputs.

export const dead: Attempted = { ...failed, decision: { state: 'dead', attemptsMade: 5, attemptsLeft: 0 } };

export type Input = (s: LeadShell) => void | Promise<void>;
export const arrive =
  (...ids: string[]): Input =>
  (s) =>
    ids.forEach((id) => s.arrive(id));
export const attempt =
  (id: string, done: Attempted | 'held'): Input =>
  (s) =>
    s.attempt(id, done);
export const released =
  (blocker: string): Input =>
  (s) =>
    s.carry.released(s.lead, blocker);
export const resume: Input = (s) => s.carry.resume(s.lead);
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

export const states = {
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
export type State = keyof typeof states;

export const noop = () => undefined;
export const set =
  (change: (s: LeadShell) => void, input: Input): Input =>
  (s) => {
    change(s);
    return input(s);
  };
export const record = (id: string, doc: DeliveryDoc) => (s: LeadShell) => void s.records.set(id, doc);
export const blockerRead =
  (blocker: string, doc: DeliveryDoc | null): Input =>
  (s) =>
    s.carry.blockerRead(s.lead, blocker, doc);

// A row: [state, what the input is, the input, what follows in order, the block after (null: none)].
export type Row = [State, string, Input, string[], BlockState | null];

// A table's rows for `it.each(rowsOf(table))('$title', runRow)`.
export const rowsOf = (table: Row[]) =>
  table.map(([state, what, input, expected, block]) => ({ title: `${state}; ${what}`, state, input, expected, block }));

// A row from a fresh shell: its state reached, its log cleared, its input run to its end.
export async function runRow({ state, input, expected, block }: ReturnType<typeof rowsOf>[number]): Promise<void> {
  const s = new LeadShell();
  await states[state](s);
  s.log.length = 0;
  await input(s);
  await s.quiet();
  expect(s.log).toEqual(expected);
  expect(s.a.lines.blocked(K)).toEqual(block);
}
