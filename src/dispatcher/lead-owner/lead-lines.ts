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

interface Line<T> {
  running: string | null; // the one attempt under way
  waiting: T[]; // arrived while it runs, in order (memory only: they are not recorded yet)
  replay: T | null; // the running delivery's own event, come again while its held record was read
  blocker: string | null;
  held: string[];
}

export class LeadLines<T extends { id: string }> {
  private readonly lines = new Map<string, Line<T>>();

  // A delivery arrives: a new event, a replay of one, or a manual retry.
  arrive(key: string, item: T): LinePlan<T> {
    const line = this.line(key);
    if (line.running === item.id) {
      line.replay = item;
      return {};
    }
    if (line.blocker !== null) {
      // The blocker's own event again (a replay after a crash lost its record): attempt it.
      if (line.blocker === item.id && line.running === null) return this.start(line, item);
      if (line.held.includes(item.id) || line.blocker === item.id) return { hold: [item] };
      line.held.push(item.id);
      return { hold: [item], block: this.blockOf(line) };
    }
    if (line.running !== null) {
      if (!line.waiting.some((w) => w.id === item.id)) line.waiting.push(item);
      return {};
    }
    return this.start(line, item);
  }

  // The attempt under way is recorded: it ended (delivered or dead), or it went to a retry tier.
  finished(key: string, id: string, outcome: 'ended' | 'retrying'): LinePlan<T> {
    const line = this.line(key);
    if (line.running !== id) return {};
    line.running = null;
    line.replay = null;
    if (outcome === 'retrying') {
      line.blocker = id;
      const hold = line.waiting.splice(0);
      line.held.push(...hold.map((h) => h.id));
      return { hold, block: this.blockOf(line) };
    }
    if (line.blocker === id) return this.next(key, line);
    const waiting = line.waiting.shift();
    if (waiting) return this.start(line, waiting);
    this.lines.delete(key);
    return {};
  }

  // A held delivery whose turn came has no record: a kill came between its lead's block and its
  // held record, so its event is uncommitted and comes again. If it came while the record was read
  // (a replay after a restart), that one is attempted in its place; else the line moves on and the
  // event, when it comes, is a new delivery.
  recordMissing(key: string, id: string): LinePlan<T> {
    const line = this.lines.get(key);
    if (!line || line.running !== id) return {};
    const replay = line.replay;
    if (replay === null) return this.finished(key, id, 'ended');
    line.replay = null;
    return { run: replay };
  }

  // The blocker ended on the retry path: the next held delivery goes.
  released(key: string, blocker: string): LinePlan<T> {
    const line = this.lines.get(key);
    if (!line || line.blocker !== blocker || line.running !== null) return {};
    return this.next(key, line);
  }

  // A block read back from the store (a partition assigned to this owner).
  load(key: string, block: BlockState): void {
    const line = this.line(key);
    if (line.running !== null || line.blocker !== null) return; // memory is newer
    line.blocker = block.blocker;
    line.held = [...block.held];
  }

  // The loaded blocker never got its attempt recorded (a held one whose turn had come): run it.
  resumeBlocker(key: string): LinePlan<T> {
    const line = this.lines.get(key);
    if (!line || line.blocker === null || line.running !== null) return {};
    line.running = line.blocker;
    return { runHeld: line.blocker };
  }

  blocked(key: string): BlockState | null {
    const line = this.lines.get(key);
    return line?.blocker ? this.blockOf(line) : null;
  }

  blockedCount(): number {
    let n = 0;
    for (const line of this.lines.values()) if (line.blocker !== null) n++;
    return n;
  }

  get size(): number {
    return this.lines.size;
  }

  private next(key: string, line: Line<T>): LinePlan<T> {
    const next = line.held.shift();
    if (next === undefined) {
      line.blocker = null;
      const waiting = line.waiting.shift();
      if (waiting) return { ...this.start(line, waiting), block: null };
      this.lines.delete(key);
      return { block: null };
    }
    line.blocker = next;
    line.running = next;
    return { runHeld: next, block: this.blockOf(line) };
  }

  private start(line: Line<T>, item: T): LinePlan<T> {
    line.running = item.id;
    return { run: item };
  }

  private line(key: string): Line<T> {
    let line = this.lines.get(key);
    if (!line) {
      line = { running: null, waiting: [], replay: null, blocker: null, held: [] };
      this.lines.set(key, line);
    }
    return line;
  }

  private blockOf(line: Line<T>): BlockState {
    return { blocker: line.blocker as string, held: [...line.held] };
  }
}
