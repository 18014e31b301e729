import pino, { type DestinationStream, type Logger } from 'pino';

// Anything that could hold a phone, an email, a secret or a signature is censored wherever it appears.
export const REDACT_PATHS = [
  'phone',
  'email',
  '*.phone',
  '*.email',
  '*.*.phone',
  '*.*.email',
  'api_key',
  'hmac_secret',
  'callback_secret',
  '*.api_key',
  '*.hmac_secret',
  '*.callback_secret',
  'req.headers.authorization',
  'req.headers["x-signature"]',
  'headers.authorization',
  'headers["x-signature"]',
  'signature',
  '*.signature',
  'token',
  '*.token',
];

// Standard output unless `destination` says otherwise (a test reads what the service logs).
export function createLogger(level: string, name = 'lead-intake', destination?: DestinationStream): Logger {
  return pino({ name, level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, destination);
}

export type { Logger };
