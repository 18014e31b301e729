import type { Attempted } from '../../src/dispatcher/delivery-attempt';
import { LeadLines } from '../../src/dispatcher/lead-owner/lead-lines';
import {
  plan,
  type OwnerInput,
  type PlanItem,
  type RecordWrite,
  type Step,
} from '../../src/dispatcher/lead-owner/plan';
import { HELD_FOR_PAUSED_ENDPOINT, type DeliveryDoc } from '../../src/shared/mongo/delivery-doc';
import type { LeadEvent } from '../../src/shared/schemas';

// A lead's line and the plan's inputs, for the lead owner's rule tests: no Kafka, no store.
export const K = 'pa-1:le-1';

export interface TestItem extends PlanItem {
  id: string;
}

// An event's delivery: no record yet, its offset waiting for one.
export const fresh = (id: string): TestItem => ({ id, doc: null, recorded: {} });

const event: LeadEvent = {
  event_id: 'le-1:0',
  event: 'lead.accepted',
  lead_id: 'le-1',
  partner_id: 'pa-1',
  external_lead_id: 'x1',
  our_status: 'new',
  is_depositor: false,
  occurred_at: '2026-11-27T10:00:00.000Z',
};

const at = new Date('2026-11-27T10:00:01.000Z');
const base = {
  event_id: event.event_id,
  event_name: event.event,
  partner_id: 'pa-1',
  lead_id: 'le-1',
  event,
  attempts_made: 0,
  attempts_left: 5,
  last_http_status: null,
  last_response_body: null,
  last_error: null,
  attempts: [],
  manual_retries: [],
  created_at: at,
  updated_at: at,
};

export const heldRecord = (id: string, heldBy: string): DeliveryDoc => ({
  ...base,
  _id: id,
  state: 'queued',
  held_by: heldBy,
  next_attempt_at: null,
});
export const waitingRecord = (id: string, retries: { at: Date; by: string }[] = []): DeliveryDoc => ({
  ...base,
  _id: id,
  state: 'queued',
  next_attempt_at: at,
  manual_retries: retries,
});
export const endedRecord = (id: string, state: 'delivered' | 'dead'): DeliveryDoc => ({
  ...base,
  _id: id,
  state,
  attempts_made: 1,
  next_attempt_at: null,
});

// A held one's turn: its record is read, its event committed long ago.
export const heldTurn = (id: string, blocker: string): TestItem => ({
  id,
  doc: heldRecord(id, blocker),
  recorded: null,
});
// A fresh round a manager asked for: its record exists, its offset waits.
export const round = (id: string): TestItem => ({ id, doc: waitingRecord(id), recorded: {} });

const result = {
  httpStatus: 503,
  failure: null,
  error: null,
  responseBody: 'later',
  durationMs: 40,
  retryAfterMs: null,
};
export const failed: Attempted = {
  at,
  result,
  decision: { state: 'queued', attemptsMade: 1, attemptsLeft: 4, nextAttemptAt: at.getTime() + 1000, tier: 'retry1' },
};
export const delivered: Attempted = {
  at,
  result: { ...result, httpStatus: 200, responseBody: 'ok' },
  decision: { state: 'delivered', attemptsMade: 1, attemptsLeft: 0 },
};

export function planner() {
  const lines = new LeadLines<TestItem>();
  // As carry-out plans: over the lead's line as it is, keeping the line it leaves.
  const planned = (input: OwnerInput<TestItem>): Step<TestItem>[] => lines.update(K, (line) => plan(line, input)).steps;
  return { lines, plan: planned };
}

// What a plan does, in order, as outcomes: what is sent, published, recorded, committed, and the
// lead's block as stored. A nested decision is planned in its turn (it moves the line) and its
// outcomes follow; forked steps are listed where they start. Two steps are waits, not outcomes, and
// are left out: `after-line` (every write waits for the lead's writes decided before it) and
// `await-earlier-job` (listed as what it waits for).
export function outcomes(plan: (input: OwnerInput<TestItem>) => Step<TestItem>[], steps: Step<TestItem>[]): string[] {
  return steps.flatMap((s): string[] => {
    switch (s.do) {
      case 'send':
      case 'submit':
        return [`send ${s.item.id}`];
      case 'send-record':
        return [`send ${s.record._id} from its held record`];
      case 'await-earlier-job':
        return [`wait for ${s.item.id}'s earlier job`];
      case 'publish-task':
        return s.done.decision.state === 'queued'
          ? [`retry task ${s.item.id} on ${s.done.decision.tier}`]
          : s.done.decision.state === 'dead'
            ? [`dead task ${s.item.id}`]
            : [];
      case 'publish-overflow':
        return [`retry task ${s.item.id} on the first tier (queue full)`];
      case 'record-in-turn':
        return [`record ${s.item.id}: ${s.done.decision.state}, in its lead's turn`];
      case 'write':
        return [`record ${s.item.id}: ${written(s.write)}`];
      case 'save-block':
        return [s.block ? `block ${s.block.blocker} <- [${s.block.held.join(', ')}]` : 'unblock'];
      case 'leave-slot':
        return [`free ${s.item.id}'s partner slot`];
      case 'settle':
        return [`commit ${s.item.id}`];
      case 'count-held':
        return [`count ${s.item.id} held`];
      case 'count-parked':
        return [`count ${s.item.id} parked`];
      case 'read-turn':
        return [`read ${s.id}'s record`];
      case 'park-lead':
        return ['park the lead'];
      case 'after-line':
        return [];
      case 'fork':
        return outcomes(plan, s.steps);
      case 'decide':
        return outcomes(plan, plan(s.input));
    }
  });
}

function written(w: RecordWrite): string {
  const held = (by: string) => (by === HELD_FOR_PAUSED_ENDPOINT ? 'parked for its endpoint' : `held behind ${by}`);
  if ('insert' in w) {
    const first = w.insert;
    if ('decision' in first) return `new, ${first.decision.state}`;
    return 'dueAt' in first ? 'new, on the first retry tier' : `new, ${held(first.heldBy)}`;
  }
  if ('attempt' in w) return `attempt added, ${w.attempt.decision.state}`;
  if ('hold' in w) return held(w.hold);
  return 'on the first retry tier';
}
