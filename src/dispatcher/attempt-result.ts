// What one HTTP attempt gave, and the vocabulary of its error field. An error is "<kind>" or
// "<kind>:<detail>", e.g. "connection_error:ECONNREFUSED" or "address_refused:loopback".
export interface AttemptResult {
  httpStatus: number | null;
  error: string | null;
  responseBody: string | null;
  durationMs: number;
  // What a 429 or 503 asked for in Retry-After (ms from the end of the attempt); null otherwise.
  retryAfterMs?: number | null;
}

export type AttemptErrorKind =
  | 'timeout' // no complete answer within the attempt timeout
  | 'connection_error' // DNS, TCP or TLS failure, or the connection dropped
  | 'address_refused' // the host resolved to a loopback, private, link-local... address (SSRF guard)
  | 'https_required' // an http:// URL where only https is allowed
  | 'invalid_url'
  | 'no_callback_url' // the partner's URL was removed after the event was queued
  | 'payload_refused'; // the body failed the money guard or the schema: never sent

export function attemptError(kind: AttemptErrorKind, detail?: string): string {
  return detail ? `${kind}:${detail}` : kind;
}

export function attemptErrorKind(error: string): string {
  const colon = error.indexOf(':');
  return colon < 0 ? error : error.slice(0, colon);
}
