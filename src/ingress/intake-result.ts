import { ApiError } from '../shared/errors';
import type { IntakeDecision } from '../shared/schemas';

// The intake result of spec 2.3.
export interface IntakeResult {
  id: string | null;
  status: 'accepted' | 'duplicate' | 'validation_error' | 'rejected';
  reason: string | null;
  duration_ms?: number;
  replay?: true;
}

// A final answer to one Idempotency-Key: what is stored, and what every replay returns (plus replay: true).
export interface StoredOutcome {
  http: number;
  body: IntakeResult | ReturnType<ApiError['body']>;
}

// durationMs is left out for a decision read back from storage: only a fresh acceptance is timed.
export function fromDecision(decision: IntakeDecision, durationMs?: number): StoredOutcome {
  switch (decision.outcome) {
    case 'accepted': {
      const timing = durationMs === undefined ? {} : { duration_ms: durationMs };
      return { http: 200, body: { id: decision.lead_id, status: 'accepted', reason: null, ...timing } };
    }
    case 'duplicate':
      return { http: 409, body: { id: decision.lead_id, status: 'duplicate', reason: decision.reason } };
    // The processor keeps rejected leads under an id (for the lead.rejected callback); spec 2.3 answers null.
    case 'rejected':
      return { http: 422, body: { id: null, status: 'rejected', reason: decision.reason } };
    case 'idempotency_mismatch':
      return fromError(new ApiError('idempotency_key_reused'));
    // The processor could not decide and stored nothing: a retryable 503, never a stored answer.
    case 'failed':
      throw new ApiError('service_unavailable', {}, { 'retry-after': '1' });
  }
}

export function validationFailure(reason: string): StoredOutcome {
  return { http: 422, body: { id: null, status: 'validation_error', reason } };
}

export function fromError(err: ApiError): StoredOutcome {
  return { http: err.status, body: err.body() };
}

// A stored answer given again: same HTTP status and body, marked replay, without the first request's timing.
export function asReplay(stored: StoredOutcome): StoredOutcome {
  const { duration_ms: _timing, ...body } = stored.body as IntakeResult;
  return { http: stored.http, body: { ...body, replay: true } };
}

export type OutcomeLabel =
  | 'accepted'
  | 'duplicate'
  | 'validation_error'
  | 'rejected'
  | 'replay'
  | 'auth_failed'
  | 'rate_limited'
  | 'refused'
  | 'error'
  | 'found'
  | 'not_found';

// The metrics label of an answer: the intake status when there is one, else the kind of error.
export function outcomeLabel(http: number, body: unknown): OutcomeLabel {
  const b = (body ?? {}) as { status?: unknown; replay?: unknown; error?: unknown };
  if (b.replay === true) return 'replay';
  if (b.status === 'accepted' || b.status === 'duplicate' || b.status === 'validation_error' || b.status === 'rejected')
    return b.status;
  if (http === 401 || http === 403) return 'auth_failed';
  if (http === 429) return 'rate_limited';
  if (http === 404) return 'not_found';
  if (http < 400) return 'found';
  return http >= 500 ? 'error' : 'refused';
}
