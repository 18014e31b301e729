// One lead's callbacks to one partner go out in event order: one attempt at a time, and
// while a delivery of the lead is on the retry path (its *blocker*) the later ones are recorded as
// held and wait for it to end. Other leads and other partners never wait. These are the pure
// decisions; lead-owner/ plans and carries out the I/O they ask for. Keys are "<partner id>:<lead id>".
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
// `replay` is the running delivery's own event, come again while its held record was read.
type Line<T> =
  | { state: 'running'; running: string; replay: T | null; waiting: T[] }
  | { state: 'blocked'; blocker: string; turn: boolean; replay: T | null; held: string[] };
type Blocked<T> = Extract<Line<T>, { state: 'blocked' }>;

export class LeadLines<T extends { id: string }> {
  private readonly lines = new Map<string, Line<T>>();

  // A delivery arrives: a new event, a replay of one, or a manual retry.
  arrive(key: string, item: T): LinePlan<T> {
    const line = this.lines.get(key);
    if (!line) return this.start(key, item);
    if (isRunning(line, item.id)) {
      line.replay = item;
      return {};
    }
    if (line.state === 'running') {
      if (!line.waiting.some((w) => w.id === item.id)) line.waiting.push(item);
      return {};
    }
    // The blocker's own event again (a replay after a crash lost its record): attempt it.
    if (line.blocker === item.id) {
      line.turn = true;
      return { run: item };
    }
    if (line.held.includes(item.id)) return { hold: [item] };
    line.held.push(item.id);
    return { hold: [item], block: blockOf(line) };
  }

  // The attempt under way is recorded: it ended (delivered or dead), or it went to a retry tier.
  finished(key: string, id: string, outcome: 'ended' | 'retrying'): LinePlan<T> {
    const line = this.lines.get(key);
    if (!line || !isRunning(line, id)) return {};
    if (outcome === 'retrying') {
      const hold = line.state === 'running' ? line.waiting : [];
      const held = line.state === 'running' ? hold.map((h) => h.id) : line.held;
      const blocked: Blocked<T> = { state: 'blocked', blocker: id, turn: false, replay: null, held };
      this.lines.set(key, blocked);
      return { hold, block: blockOf(blocked) };
    }
    if (line.state === 'blocked') return this.next(key, line);
    const waiting = line.waiting.shift();
    if (!waiting) {
      this.lines.delete(key);
      return {};
    }
    line.running = waiting.id;
    line.replay = null;
    return { run: waiting };
  }

  // A held delivery whose turn came has no record: a kill came between its lead's block and its
  // held record, so its event is uncommitted and comes again. If it came while the record was read
  // (a replay after a restart), that one is attempted in its place; else the line moves on and the
  // event, when it comes, is a new delivery.
  recordMissing(key: string, id: string): LinePlan<T> {
    const line = this.lines.get(key);
    if (!line || !isRunning(line, id)) return {};
    const replay = line.replay;
    if (replay === null) return this.finished(key, id, 'ended');
    line.replay = null;
    return { run: replay };
  }

  // The blocker ended on the retry path: the next held delivery goes.
  released(key: string, blocker: string): LinePlan<T> {
    const line = this.lines.get(key);
    if (line?.state !== 'blocked' || line.blocker !== blocker || line.turn) return {};
    return this.next(key, line);
  }

  // A block read back from the store (a partition assigned to this owner).
  load(key: string, block: BlockState): void {
    if (this.lines.has(key)) return; // memory is newer
    this.lines.set(key, { state: 'blocked', blocker: block.blocker, turn: false, replay: null, held: [...block.held] });
  }

  // The loaded blocker never got its attempt recorded (a held one whose turn had come): run it.
  resumeBlocker(key: string): LinePlan<T> {
    const line = this.lines.get(key);
    if (line?.state !== 'blocked' || line.turn) return {};
    line.turn = true;
    return { runHeld: line.blocker };
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

  // The blocker ended: the next held one's turn, or the line is free.
  private next(key: string, line: Blocked<T>): LinePlan<T> {
    const next = line.held.shift();
    if (next === undefined) {
      this.lines.delete(key);
      return { block: null };
    }
    line.blocker = next;
    line.turn = true;
    line.replay = null;
    return { runHeld: next, block: blockOf(line) };
  }

  private start(key: string, item: T): LinePlan<T> {
    this.lines.set(key, { state: 'running', running: item.id, replay: null, waiting: [] });
    return { run: item };
  }
}

// The delivery whose attempt is under way: the running one, or the blocker in its held turn.
const isRunning = <T>(line: Line<T>, id: string): boolean =>
  line.state === 'running' ? line.running === id : line.turn && line.blocker === id;

const blockOf = <T>(line: Blocked<T>): BlockState => ({ blocker: line.blocker, held: [...line.held] });
