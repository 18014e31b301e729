import type { OwnerInput, RecordWrite, Step } from '../../src/dispatcher/lead-owner/plan';
import type { BlockState } from '../../src/dispatcher/lead-owner/lead-lines';
import { failed, fresh, planner, type TestItem } from './lead-plan';

// The lead owner's plans carried out over a world that only notes what happens, in order: what is
// sent, published, saved and written, which partner slot is let go, which offset may move. The
// rules are then stated as outcomes. Work the plan starts alongside (a fork) is noted where it
// starts; a held one's turn stops at the read of its record (the test gives the record). The
// deliveries named arrive first, in order.
export function lead(...arrived: string[]) {
  const p = planner();
  const carry = (steps: Step<TestItem>[], out: string[]): void => {
    for (const step of steps) {
      const noted = outcome(step);
      if (noted) out.push(noted);
      if (step.do === 'fork') carry(step.steps, out);
      else if (step.do === 'decide') carry(p.plan(step.input), out);
      else if (step.do === 'send') carry(p.plan({ kind: 'send', item: step.item, earlierJob: false }), out);
    }
  };
  // The outcomes of one input, with the inputs the plan decides on its way.
  const outcomes = (input: OwnerInput<TestItem>): string[] => {
    const out: string[] = [];
    carry(p.plan(input), out);
    return out;
  };
  for (const id of arrived) outcomes({ kind: 'arrived', item: fresh(id) });
  return { ...p, carry: outcomes };
}

// A lead whose first delivery `a` failed and waits on the retry path, the others named held behind it.
export function blockedLead(...held: string[]) {
  const l = lead('a', ...held);
  l.carry({ kind: 'attempted', item: fresh('a'), done: failed });
  return l;
}

function outcome(step: Step<TestItem>): string | null {
  switch (step.do) {
    case 'save-block':
      return blockText(step.block);
    case 'publish-task': {
      const { decision } = step.done;
      return decision.state === 'queued'
        ? `task ${step.item.id} on ${decision.tier}`
        : decision.state === 'dead'
          ? `dead task ${step.item.id}`
          : null;
    }
    case 'record-in-turn':
      return `record ${step.item.id}: ${step.done.decision.state}, in its lead's turn`;
    case 'leave-slot':
      return `slot of ${step.item.id} let go`;
    case 'publish-overflow':
      return `task ${step.item.id} on the first tier (queue full)`;
    case 'write':
      return `record ${step.item.id}: ${writeText(step.write)}`;
    case 'settle':
      return `offset of ${step.item.id} may move`;
    case 'submit':
      return `send ${step.item.id}`;
    case 'await-earlier-job':
      return `wait for the earlier job of ${step.item.id}`;
    case 'read-turn':
      return `read the record of ${step.id}`;
    case 'send-record':
      return `send ${step.record._id}`;
    case 'park-lead':
      return 'lead parked';
    case 'count-held':
    case 'count-parked':
      return `counted held ${step.item.id}`;
    case 'after-line':
    case 'fork':
    case 'decide':
    case 'send':
      return null;
  }
}

const blockText = (block: BlockState | null): string =>
  block ? `block ${block.blocker} [${block.held.join(', ')}]` : 'block removed';

function writeText(write: RecordWrite): string {
  if ('hold' in write) return `held by ${write.hold}`;
  if ('awaitRetry' in write) return `waits on the first tier until ${write.awaitRetry.getTime()}`;
  if ('attempt' in write) return `${write.attempt.decision.state}, attempt added`;
  const first = write.insert;
  const what =
    'heldBy' in first
      ? `held by ${first.heldBy}`
      : 'dueAt' in first
        ? `waits on the first tier until ${first.dueAt.getTime()}`
        : first.decision.state;
  return `${what}, first record`;
}
