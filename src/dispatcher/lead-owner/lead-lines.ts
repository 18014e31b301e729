// One lead's callbacks to one partner go out in event order: one attempt at a time, and while a
// delivery of the lead is on the retry path (its *blocker*) the later ones are recorded as held and
// wait for it to end. Other leads and other partners never wait. A line is a value and `transition`
// a pure function over it; plan.ts turns its effects into the I/O to carry out. Keys are
// "<partner id>:<lead id>".
export interface BlockState {
  blocker: string; // the delivery the others wait for: on the retry path, or the held one being attempted
  held: string[]; // delivery ids recorded as held, in event order
}

// A lead's line: where each of its deliveries stands.
export type LineState<T> =
  | { kind: 'free' } // nothing under way
  | { kind: 'sending'; running: string; waiting: readonly T[] } // one attempt under way; the later ones wait in memory, unrecorded
  | { kind: 'blocked'; blocker: string; held: readonly string[]; turn: Turn<T> | null }; // turn: the blocker's attempt under way

// The blocker's own attempt under way (a held one's turn, or its event come again). replay: its
// event, come again while its held record was read.
export interface Turn<T> {
  replay: T | null;
}

export type LineInput<T> =
  | { kind: 'arrive'; item: T } // a new event's delivery, a replay of one, or a manual retry
  | { kind: 'finished'; id: string; outcome: 'ended' | 'retrying' } // the attempt under way is recorded
  | { kind: 'record-missing'; id: string } // a held one's turn came and its record is not written
  | { kind: 'released'; blocker: string } // the blocker ended on the retry path
  | { kind: 'load'; block: BlockState } // a block read back from the store (a partition assigned)
  | { kind: 'resume' }; // the blocker goes now (its endpoint resumed, or its block was read back)

// What a transition asks for, in this order: the block as it must be persisted now (null: remove
// it), the ones to record as held behind the blocker, the one to attempt now (run: an item;
// runHeld: a held delivery, whose record holds the event).
export interface LineEffects<T> {
  block?: BlockState | null;
  hold?: T[];
  run?: T;
  runHeld?: string;
}

export interface Transition<T> {
  state: LineState<T>;
  effects: LineEffects<T>;
}

export const FREE: LineState<never> = { kind: 'free' };

const same = <T>(state: LineState<T>): Transition<T> => ({ state, effects: {} });

export function transition<T extends { id: string }>(state: LineState<T>, input: LineInput<T>): Transition<T> {
  switch (input.kind) {
    case 'arrive':
      return arrive(state, input.item);
    case 'finished':
      return finished(state, input.id, input.outcome);
    case 'record-missing':
      return recordMissing(state, input.id);
    case 'released':
      return state.kind === 'blocked' && state.blocker === input.blocker && state.turn === null
        ? next(state.held)
        : same(state);
    case 'load': // memory is newer than any block read back
      return state.kind === 'free'
        ? { state: { kind: 'blocked', ...input.block, held: [...input.block.held], turn: null }, effects: {} }
        : same(state);
    case 'resume':
      return state.kind === 'blocked' && state.turn === null
        ? { state: { ...state, turn: { replay: null } }, effects: { runHeld: state.blocker } }
        : same(state);
  }
}

function arrive<T extends { id: string }>(state: LineState<T>, item: T): Transition<T> {
  switch (state.kind) {
    case 'free':
      return { state: { kind: 'sending', running: item.id, waiting: [] }, effects: { run: item } };
    case 'sending':
      if (state.running === item.id || state.waiting.some((w) => w.id === item.id)) return same(state);
      return { state: { ...state, waiting: [...state.waiting, item] }, effects: {} };
    case 'blocked': {
      if (state.blocker === item.id)
        // Its own event under way: it comes again while its record is read. Else a replay after a
        // crash lost its record: attempt it.
        return state.turn
          ? { state: { ...state, turn: { replay: item } }, effects: {} }
          : { state: { ...state, turn: { replay: null } }, effects: { run: item } };
      if (state.held.includes(item.id)) return { state, effects: { hold: [item] } };
      const held = [...state.held, item.id];
      return { state: { ...state, held }, effects: { hold: [item], block: { blocker: state.blocker, held } } };
    }
  }
}

// The attempt under way is recorded: it ended (delivered or dead), or it went to a retry tier.
function finished<T extends { id: string }>(
  state: LineState<T>,
  id: string,
  outcome: 'ended' | 'retrying',
): Transition<T> {
  if (state.kind === 'sending' && state.running === id) {
    if (outcome === 'retrying') {
      const held = state.waiting.map((w) => w.id);
      return {
        state: { kind: 'blocked', blocker: id, held, turn: null },
        effects: { hold: [...state.waiting], block: { blocker: id, held } },
      };
    }
    const [first, ...rest] = state.waiting;
    return first
      ? { state: { kind: 'sending', running: first.id, waiting: rest }, effects: { run: first } }
      : same(FREE);
  }
  if (state.kind === 'blocked' && state.turn && state.blocker === id)
    return outcome === 'retrying'
      ? { state: { ...state, turn: null }, effects: { hold: [], block: { blocker: id, held: [...state.held] } } }
      : next(state.held);
  return same(state);
}

// A held delivery whose turn came has no record: a kill came between its lead's block and its held
// record, so its event is uncommitted and comes again. If it came while the record was read (a
// replay after a restart), that one is attempted in its place; else the line moves on and the
// event, when it comes, is a new delivery.
function recordMissing<T>(state: LineState<T>, id: string): Transition<T> {
  if (state.kind !== 'blocked' || !state.turn || state.blocker !== id) return same(state);
  const { replay } = state.turn;
  return replay === null ? next(state.held) : { state: { ...state, turn: { replay: null } }, effects: { run: replay } };
}

// The blocker ended: the next held delivery is the blocker and goes, or the line is free.
function next<T>(held: readonly string[]): Transition<T> {
  const [blocker, ...rest] = held;
  if (blocker === undefined) return { state: FREE, effects: { block: null } };
  return {
    state: { kind: 'blocked', blocker, held: rest, turn: { replay: null } },
    effects: { runHeld: blocker, block: { blocker, held: rest } },
  };
}

export const blockOf = <T>(state: LineState<T>): BlockState | null =>
  state.kind === 'blocked' ? { blocker: state.blocker, held: [...state.held] } : null;

// The lines of an assignment's partitions, by key: a free line is not kept.
export class LeadLines<T> {
  private readonly lines = new Map<string, LineState<T>>();

  get(key: string): LineState<T> {
    return this.lines.get(key) ?? FREE;
  }

  set(key: string, state: LineState<T>): void {
    if (state.kind === 'free') this.lines.delete(key);
    else this.lines.set(key, state);
  }

  blocked(key: string): BlockState | null {
    return blockOf(this.get(key));
  }

  blockedCount(): number {
    let n = 0;
    for (const line of this.lines.values()) if (line.kind === 'blocked') n++;
    return n;
  }

  get size(): number {
    return this.lines.size;
  }
}
