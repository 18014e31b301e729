// Every {error, message} answer the HTTP API can give, in one place. docs/errors.md's table is
// checked against this list by test/unit/readme-docs.test.ts. Intake outcomes (duplicate,
// validation_error, rejected) are not errors: they use the intake result shape of spec 2.3.
export const ERRORS = {
  missing_api_key: { status: 401, retriable: false, message: 'Send Authorization: Bearer <api_key>' },
  invalid_api_key: { status: 401, retriable: false, message: 'The API key is not valid (it may have been rotated)' },
  invalid_signature: {
    status: 403,
    retriable: false,
    message: 'X-Signature must be sha256=<hex HMAC-SHA256 of the raw body with your hmac_secret>',
  },
  invalid_timestamp: {
    status: 403,
    retriable: false,
    message: 'X-Timestamp must be Unix seconds within {tolerance} seconds of our clock',
  },
  partner_disabled: {
    status: 403,
    retriable: false,
    message: 'This partner account is disabled; contact your manager',
  },
  malformed_json: { status: 400, retriable: false, message: 'The body is not valid JSON' },
  malformed_request: {
    status: 400,
    retriable: false,
    message: 'The HTTP request could not be read (malformed or incomplete)',
  },
  headers_too_large: { status: 431, retriable: false, message: 'The request headers are larger than {limit} bytes' },
  invalid_idempotency_key: {
    status: 400,
    retriable: false,
    message: 'Idempotency-Key must be 1 to 255 printable ASCII characters',
  },
  payload_too_large: { status: 413, retriable: false, message: 'The body is larger than {limit} bytes' },
  unsupported_media_type: { status: 415, retriable: false, message: 'Send Content-Type: application/json' },
  idempotency_key_in_use: {
    status: 409,
    retriable: true,
    message: 'A request with this Idempotency-Key is still being processed; retry in a moment',
  },
  idempotency_key_reused: {
    status: 422,
    retriable: false,
    message: 'This Idempotency-Key was used with a different body; use a new key for a new lead',
  },
  rate_limit_exceeded: { status: 429, retriable: true, message: 'Try again in {seconds} seconds' },
  too_many_auth_failures: {
    status: 429,
    retriable: true,
    message: 'Too many requests without a valid API key from your address; try again in {seconds} seconds',
  },
  not_found: { status: 404, retriable: false, message: 'No such resource' },
  method_not_allowed: {
    status: 405,
    retriable: false,
    message: 'This path does not take {method}; the Allow header lists the methods it takes',
  },
  decision_pending: {
    status: 503,
    retriable: true,
    message: 'The lead was received but not decided in time; retry with the same Idempotency-Key',
  },
  service_unavailable: {
    status: 503,
    retriable: true,
    message: 'Temporarily unavailable; retry with the same Idempotency-Key',
  },
  command_pending: {
    status: 503,
    retriable: true,
    message:
      'The dispatcher has not confirmed the {command} in time; the command stands and will be carried out: look again in a moment',
  },
  manager_unauthorized: {
    status: 401,
    retriable: false,
    message: 'Sign in, or send Authorization: Bearer <service account token>',
  },
  portal_unauthorized: { status: 401, retriable: false, message: 'Sign in to the partner portal' },
  session_expired: { status: 401, retriable: false, message: 'Your session has ended; sign in again' },
  forbidden: { status: 403, retriable: false, message: 'Your role may not do this (it needs {permission})' },
  csrf_invalid: {
    status: 403,
    retriable: false,
    message: 'A request that changes something with a session cookie needs the X-CSRF-Token the session gave',
  },
  invalid_credentials: { status: 401, retriable: false, message: 'The email or the password is not right' },
  second_factor_invalid: {
    status: 401,
    retriable: false,
    message: 'The code or the passkey is not right, or was used already',
  },
  reauthentication_required: {
    status: 403,
    retriable: false,
    message: 'Confirm it is you first: your current password and second factor (POST auth/reauthenticate)',
  },
  sign_in_step_missing: {
    status: 401,
    retriable: false,
    message: 'Start again from the email and the password (this step has expired or was not reached)',
  },
  account_disabled: { status: 403, retriable: false, message: 'This account is disabled; ask an owner or an admin' },
  sign_in_throttled: {
    status: 429,
    retriable: true,
    message: 'Too many failed sign-ins; try again in {seconds} seconds',
  },
  link_invalid: { status: 410, retriable: false, message: 'This link is unknown, used or expired; ask for a new one' },
  personal_data_erased: {
    status: 410,
    retriable: false,
    message: "This lead's personal data has been erased; nothing can reveal it any more",
  },
  token_throttled: {
    status: 429,
    retriable: true,
    message: 'Too many unknown bearer tokens from this address; try again in {seconds} seconds',
  },
  reveal_quota_exceeded: {
    status: 429,
    retriable: true,
    message: 'Agent {agent_id} has revealed {limit} contacts in the last hour; try again in {seconds} seconds',
  },
  invalid_request: { status: 422, retriable: false, message: 'The request is not valid: {detail}' },
  conflict: { status: 409, retriable: false, message: '{detail}' },
  internal_error: { status: 500, retriable: true, message: 'Internal error; it has been logged' },
} as const;

export type ErrorCode = keyof typeof ERRORS;

// The root of every error the service raises itself: a stable code, and whether trying the same work
// again may succeed. The retry helper (retriable.ts) reads `retriable`; driver errors are brought
// into this tree by driver-errors.ts. (kafkajs' KafkaJSError is the model.)
export class ServiceError extends Error {
  readonly retriable: boolean;
  constructor(
    readonly code: string,
    message: string,
    options: { retriable: boolean; cause?: unknown },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.retriable = options.retriable;
  }
}

// Kafka, MongoDB or Redis out of reach, or not answering in time: the request may succeed when
// retried, so the HTTP API answers 503 service_unavailable, not 500.
export class DependencyError extends ServiceError {}

// A setting that is missing or wrong: the process does not start.
export class ConfigError extends ServiceError {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super('invalid_config', `Invalid configuration: ${variable} ${detail}`, { retriable: false });
    this.name = 'ConfigError';
  }
}

// An answer of the HTTP API, from the registry above.
export class ApiError extends ServiceError {
  declare readonly code: ErrorCode;
  readonly status: number;
  constructor(
    code: ErrorCode,
    params: Record<string, string | number> = {},
    readonly headers: Record<string, string> = {},
  ) {
    const def = ERRORS[code];
    super(
      code,
      def.message.replace(/\{(\w+)\}/g, (_, k: string) => String(params[k] ?? '')),
      { retriable: def.retriable },
    );
    this.status = def.status;
  }

  body(): { error: ErrorCode; message: string } {
    return { error: this.code, message: this.message };
  }
}
