import type { Attempted } from '../../src/dispatcher/delivery-attempt';
import { LeadLines } from '../../src/dispatcher/lead-owner/lead-lines';
import { plan, type OwnerInput, type PlanItem, type Step } from '../../src/dispatcher/lead-owner/plan';
import type { DeliveryDoc } from '../../src/shared/mongo/delivery-doc';
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
  return { lines, plan: (input: OwnerInput<TestItem>): Step<TestItem>[] => plan(lines, K, input) };
}

// The steps' kinds, forks and nested decisions spelled out: `fork(a, b)`, `decide:<input kind>`.
export function shape(steps: Step<TestItem>[]): string[] {
  return steps.map((s) => {
    if (s.do === 'fork') return `fork(${shape(s.steps).join(', ')})`;
    if (s.do === 'decide') return `decide:${s.input.kind}`;
    return s.do;
  });
}

// The input a `decide` step plans, for the test to plan it in its turn.
export function decision(steps: Step<TestItem>[], kind: OwnerInput<TestItem>['kind']): OwnerInput<TestItem> {
  const inputs = (all: Step<TestItem>[]): OwnerInput<TestItem>[] =>
    all.flatMap((s) => (s.do === 'decide' ? [s.input] : s.do === 'fork' ? inputs(s.steps) : []));
  const input = inputs(steps).find((i) => i.kind === kind);
  if (!input) throw new Error(`no decision ${kind} in ${shape(steps).join(' ')}`);
  return input;
}
