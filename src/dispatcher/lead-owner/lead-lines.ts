import {
  HELD_FOR_PAUSED_ENDPOINT,
  isHeld,
  type DeliveryDoc,
  type QueuedDelivery,
} from '../../shared/mongo/delivery-doc';

// One lead's callbacks to one partner go out in event order: one attempt at a time, and
// while a delivery of the lead is on the retry path (its *blocker*) the later ones are recorded as
// held and wait for it to end. Other leads and other partners never wait. These are the pure
// decisions; carry-out.ts carries out the I/O they ask for. Keys are "<partner id>:<lead id>".
export interface BlockState {
  blocker: string; // the delivery the others wait for: on the retry path, or the held one being attempted
  held: string[]; // delivery ids recorded as held, in event order
}

export interface LinePlan<T> {
  run?: T; // attempt this one now
  runHeld?: string; // attempt this held delivery now (its record holds the event)
  hold?: T[]; // record these as held behind the blocker
  block?: BlockState | null; // the lead's block as it must be persisted now (null: remove it)
}

// A lead's line is in one of two states. Running: one attempt under way, the deliveries that arrived
// meanwhile waiting in memory (unrecorded), in order. Blocked: one delivery (the blocker) is on the
// retry path, or its held turn is under way, and the later ones are recorded as held, in order.
// `replay` is the running delivery's own event, come again while its held record was read. No line:
// nothing of the lead is under way or held.
export type Line<T> =
  | { state: 'running'; running: string; replay: T | null; waiting: readonly T[] }
  | { state: 'blocked'; blocker: string; turn: boolean; replay: T | null; held: readonly string[] };
type Blocked<T> = Extract<Line<T>, { state: 'blocked' }>;

export type LineInput<T> =
  | { kind: 'arrive'; item: T } // a new event, a replay of one, or a manual retry
  | { kind: 'finished'; id: string; outcome: 'ended' | 'retrying' } // the attempt under way is recorded
  | { kind: 'record-missing'; id: string } // a held one's turn found no record of it
  | { kind: 'released'; blocker: string } // the blocker ended on the retry path
  | { kind: 'resume' } // a blocker read back never got its attempt recorded (its held turn had come)
  | { kind: 'load'; block: BlockState }; // a block read back from the store (a partition assigned)

// A line's next state and what it asks for (no I/O, nothing changed in place).
export interface LineStep<T> {
  line: Line<T> | undefined;
  plan: LinePlan<T>;
}

export function transition<T extends { id: string }>(line: Line<T> | undefined, input: LineInput<T>): LineStep<T> {
  const same = (plan: LinePlan<T> = {}): LineStep<T> => ({ line, plan });
  switch (input.kind) {
    case 'arrive':
      return arrive(line, input.item);
    case 'finished':
      return line && isRunning(line, input.id) ? finished(line, input.id, input.outcome) : same();
    case 'record-missing': {
      // A kill came between the lead's block and the held record, so its event is uncommitted and
      // comes again. If it came while the record was read (a replay after a restart), that one is
      // attempted in its place; else the line moves on and the event, when it comes, is a new delivery.
      if (!line || !isRunning(line, input.id)) return same();
      if (line.replay === null) return finished(line, input.id, 'ended');
      return { line: { ...line, replay: null }, plan: { run: line.replay } };
    }
    case 'released':
      return line?.state === 'blocked' && line.blocker === input.blocker && !line.turn ? next(line) : same();
    case 'resume':
      return line?.state === 'blocked' && !line.turn
        ? { line: { ...line, turn: true }, plan: { runHeld: line.blocker } }
        : same();
    case 'load': {
      if (line) return same(); // memory is newer
      const { blocker, held } = input.block;
      return { line: { state: 'blocked', blocker, turn: false, replay: null, held: [...held] }, plan: {} };
    }
  }
}

function arrive<T extends { id: string }>(line: Line<T> | undefined, item: T): LineStep<T> {
  if (!line) return { line: { state: 'running', running: item.id, replay: null, waiting: [] }, plan: { run: item } };
  if (isRunning(line, item.id)) return { line: { ...line, replay: item }, plan: {} };
  if (line.state === 'running') {
    const waits = line.waiting.some((w) => w.id === item.id);
    return { line: waits ? line : { ...line, waiting: [...line.waiting, item] }, plan: {} };
  }
  // The blocker's own event again (a replay after a crash lost its record): attempt it.
  if (line.blocker === item.id) return { line: { ...line, turn: true }, plan: { run: item } };
  if (line.held.includes(item.id)) return { line, plan: { hold: [item] } };
  const blocked = { ...line, held: [...line.held, item.id] };
  return { line: blocked, plan: { hold: [item], block: blockOf(blocked) } };
}

// The attempt under way (`id`) is recorded: it ended (delivered or dead), or it went to a retry tier.
function finished<T extends { id: string }>(line: Line<T>, id: string, outcome: 'ended' | 'retrying'): LineStep<T> {
  if (outcome === 'retrying') {
    const hold = line.state === 'running' ? [...line.waiting] : [];
    const held = line.state === 'running' ? hold.map((h) => h.id) : line.held;
    const blocked: Blocked<T> = { state: 'blocked', blocker: id, turn: false, replay: null, held };
    return { line: blocked, plan: { hold, block: blockOf(blocked) } };
  }
  if (line.state === 'blocked') return next(line);
  const [waiting, ...rest] = line.waiting;
  if (!waiting) return { line: undefined, plan: {} };
  return { line: { state: 'running', running: waiting.id, replay: null, waiting: rest }, plan: { run: waiting } };
}

// The blocker ended: the next held one's turn, or the line is free.
function next<T>(line: Blocked<T>): LineStep<T> {
  const [blocker, ...held] = line.held;
  if (blocker === undefined) return { line: undefined, plan: { block: null } };
  const turn: Blocked<T> = { state: 'blocked', blocker, turn: true, replay: null, held };
  return { line: turn, plan: { runHeld: blocker, block: blockOf(turn) } };
}

// A block read back: its blocker ended (a crash before its release reached this line), is a held
// one whose turn had come, is parked (held for its endpoint: it goes with the endpoint's paced
// release), or is on the retry path (its end sends `released`: null). No record: null too, its
// event is uncommitted and comes again.
export function blockerInput(blocker: string, record: DeliveryDoc | null): LineInput<never> | 'park' | null {
  if (!record) return null;
  if (record.state !== 'queued') return { kind: 'released', blocker };
  if (record.held_by === HELD_FOR_PAUSED_ENDPOINT) return 'park';
  if (isHeld(record)) return { kind: 'resume' };
  return null;
}

// A held one's turn came and its record was read: what its line learns, or its record to send.
export function turnInput(id: string, record: DeliveryDoc | null): LineInput<never> | { send: QueuedDelivery } {
  // Not written: its event comes again (`record-missing`), or came while the record was read.
  if (!record) return { kind: 'record-missing', id };
  // Its record ended already (a crash after its attempt).
  if (record.state !== 'queued') return { kind: 'finished', id, outcome: 'ended' };
  // No longer held: its turn went on before (an owner lost the lead after the record of its attempt,
  // or of its wait on a retry tier, and before the lead's next block). Its retry task was published
  // before that record and comes to this owner: the line waits for it as for any blocker on the retry
  // path, or both would send it. (A manager's fresh round not yet recorded as held comes again with
  // its command, whose offset waits for that record.)
  if (!isHeld(record)) return { kind: 'finished', id, outcome: 'retrying' };
  return { send: record };
}

// The delivery whose attempt is under way: the running one, or the blocker in its held turn.
const isRunning = <T>(line: Line<T>, id: string): boolean =>
  line.state === 'running' ? line.running === id : line.turn && line.blocker === id;

const blockOf = <T>(line: Blocked<T>): BlockState => ({ blocker: line.blocker, held: [...line.held] });

// The lines of the leads an owner holds, by key (no line: nothing of the lead under way or held).
export class LeadLines<T extends { id: string }> {
  private readonly lines = new Map<string, Line<T>>();

  get(key: string): Line<T> | undefined {
    return this.lines.get(key);
  }

  // A pure decision over the lead's line as it is now; the line it leaves is kept at once, so the
  // next decision (made before this one's steps are carried out) finds it.
  update<R extends { line: Line<T> | undefined }>(key: string, decide: (line: Line<T> | undefined) => R): R {
    const decided = decide(this.lines.get(key));
    if (decided.line) this.lines.set(key, decided.line);
    else this.lines.delete(key);
    return decided;
  }

  // A block read back from the store (a partition assigned to this owner).
  load(key: string, block: BlockState): void {
    this.update(key, (line) => transition(line, { kind: 'load', block }));
  }

  blocked(key: string): BlockState | null {
    const line = this.lines.get(key);
    return line?.state === 'blocked' ? blockOf(line) : null;
  }

  blockedCount(): number {
    let n = 0;
    for (const line of this.lines.values()) if (line.state === 'blocked') n++;
    return n;
  }

  get size(): number {
    return this.lines.size;
  }
}
