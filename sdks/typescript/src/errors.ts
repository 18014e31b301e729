// The one error the SDK throws: `code` is the service's error code (docs/errors.md), or one of the
// SDK's own: network_error (no answer), invalid_signature / invalid_timestamp (a callback or postback
// that does not verify) and unexpected_answer (an answer the partner API never gives).
export class LeadIntakeError extends Error {
  override readonly name = 'LeadIntakeError';

  constructor(
    readonly code: string,
    message: string,
    readonly status: number | null = null,
    readonly retryAfterS: number | null = null,
  ) {
    super(message);
  }
}
