import {
  LeadLines,
  transition,
  type BlockState,
  type LineInput,
  type LinePlan,
} from '../../src/dispatcher/lead-owner/lead-lines';

// Leads' lines driven one input at a time, as the lead owner's carry-out does (carry-out.ts): each input goes
// through `transition` and the line it leaves is kept by key.
export class LineInputs<T extends { id: string }> {
  private readonly lines = new LeadLines<T>();

  arrive(key: string, item: T): LinePlan<T> {
    return this.apply(key, { kind: 'arrive', item });
  }

  finished(key: string, id: string, outcome: 'ended' | 'retrying'): LinePlan<T> {
    return this.apply(key, { kind: 'finished', id, outcome });
  }

  recordMissing(key: string, id: string): LinePlan<T> {
    return this.apply(key, { kind: 'record-missing', id });
  }

  released(key: string, blocker: string): LinePlan<T> {
    return this.apply(key, { kind: 'released', blocker });
  }

  resumeBlocker(key: string): LinePlan<T> {
    return this.apply(key, { kind: 'resume' });
  }

  load(key: string, block: BlockState): void {
    this.lines.load(key, block);
  }

  blocked(key: string): BlockState | null {
    return this.lines.blocked(key);
  }

  get size(): number {
    return this.lines.size;
  }

  private apply(key: string, input: LineInput<T>): LinePlan<T> {
    return this.lines.update(key, (line) => transition(line, input)).plan;
  }
}
