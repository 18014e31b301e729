// What one HTTP attempt gave: an answer (any status), or a failure before or instead of one. A
// failure's text, "<kind>" or "<kind>:<detail>" (e.g. "connection_error:ECONNREFUSED"), is what the
// delivery record's last_error, the retry task, the log and the test callback show.
export type AttemptFailure =
  | { kind: 'timeout' } // no complete answer within the attempt timeout
  | { kind: 'connection_error'; code: string } // DNS, TCP or TLS failure, or the connection dropped (never a message: it could echo the URL)
  | { kind: 'address_refused'; range: string } // the host resolved to a loopback, private, link-local... address (SSRF guard)
  | { kind: 'https_required' } // an http:// URL where only https is allowed
  | { kind: 'invalid_url'; scheme?: string }
  | { kind: 'no_callback_url' } // the partner's URL was removed after the event was queued
  | { kind: 'no_postback_url' } // the partner's postback template for the event was removed after it was queued
  | { kind: 'payload_refused'; reason: 'money_field' | 'schema'; detail: string } // failed the money guard or the schema: never sent
  | { kind: 'withheld' } // the sender's lease ran out before the request's bytes left: never sent, never recorded
  // Preparing or making the request threw. `unpreparable`: it would throw again (a value no URL can
  // carry, say), so the delivery is dead at once with the exception's name; `internal_unavailable`:
  // something of ours was out of reach (the partner directory's store), retried like a timeout.
  | { kind: 'unpreparable'; error: string }
  | { kind: 'internal_unavailable'; error: string };

export type AttemptFailureKind = AttemptFailure['kind'];

// A postback's result also carries the URL it called, the token masked: what is recorded and shown.
export type AttemptResult = (
  | {
      httpStatus: number;
      failure: null;
      error: null;
      responseBody: string;
      durationMs: number;
      // What a 429 or 503 asked for in Retry-After (ms from the end of the attempt); null otherwise.
      retryAfterMs: number | null;
    }
  | {
      httpStatus: number | null; // set when the answer's status came but its body did not
      failure: AttemptFailure;
      error: string; // failure's text
      responseBody: null;
      durationMs: number;
      retryAfterMs?: undefined;
    }
) & { url?: string };

// What a delivery record keeps of an attempt: the failure as its text.
export type RecordedAttempt = Pick<AttemptResult, 'httpStatus' | 'error' | 'responseBody' | 'durationMs' | 'url'>;

export function failedAttempt(
  failure: AttemptFailure,
  durationMs: number,
  httpStatus: number | null = null,
): AttemptResult {
  return { httpStatus, failure, error: failureText(failure), responseBody: null, durationMs };
}

export function failureText(failure: AttemptFailure): string {
  switch (failure.kind) {
    case 'connection_error':
      return `${failure.kind}:${failure.code}`;
    case 'address_refused':
      return `${failure.kind}:${failure.range}`;
    case 'invalid_url':
      return failure.scheme ? `${failure.kind}:${failure.scheme}` : failure.kind;
    case 'payload_refused':
      return `${failure.kind}:${failure.reason}:${failure.detail}`;
    case 'unpreparable':
    case 'internal_unavailable':
      return `${failure.kind}:${failure.error}`;
    default:
      return failure.kind;
  }
}
