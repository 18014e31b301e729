import {
  LeadLines,
  transition,
  type BlockState,
  type LineEffects,
  type LineInput,
} from '../../src/dispatcher/lead-owner/lead-lines';

// Lead lines by key, moved one input at a time through the pure transition, for tests that walk a
// line through a sequence of inputs.
export function walkLines<T extends { id: string }>() {
  const lines = new LeadLines<T>();
  const step = (key: string, input: LineInput<T>): LineEffects<T> => {
    const { state, effects } = transition(lines.get(key), input);
    lines.set(key, state);
    return effects;
  };
  return {
    arrive: (key: string, item: T) => step(key, { kind: 'arrive', item }),
    finished: (key: string, id: string, outcome: 'ended' | 'retrying') => step(key, { kind: 'finished', id, outcome }),
    released: (key: string, blocker: string) => step(key, { kind: 'released', blocker }),
    recordMissing: (key: string, id: string) => step(key, { kind: 'record-missing', id }),
    load: (key: string, block: BlockState) => step(key, { kind: 'load', block }),
    resumeBlocker: (key: string) => step(key, { kind: 'resume' }),
    blocked: (key: string) => lines.blocked(key),
    get size() {
      return lines.size;
    },
  };
}
