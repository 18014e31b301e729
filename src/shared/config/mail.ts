import { ConfigError } from '../errors';
import type { Env, EnvReader } from './env-reader';

// Mail to people (invitations, resets, sign-in notices) through an SMTP relay. No SMTP_URL: mail is
// off, and one-time links are shown in the API answers instead.
export interface MailConfig {
  // smtp://host:port (STARTTLS when the relay offers it) or smtps://host:port; user:password in the URL.
  readonly smtpUrl: string;
  readonly from: string;
  readonly replyTo: string | null;
  // Where the console and the portal are reached: a link in a mail must be whole.
  readonly pagesUrl: string;
  // Tries of one message before it is marked dead, and the first wait between two (doubled each time).
  readonly maxAttempts: number;
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  // The longest the sender waits before it looks for mail due (mail queued in its own process, and
  // retries, wake it at once), and how long one SMTP exchange may take.
  readonly pollMs: number;
  readonly smtpTimeoutMs: number;
}

// "Name <box@host>" or "box@host": the address part must look like one, and nothing may break a header.
const ADDRESS = /^(?:[^<>\r\n]*<)?[^\s<>@]+@[^\s<>@]+\.?[^\s<>@]*>?$/;

function address(r: EnvReader, name: string, fallback?: string): string {
  const value = r.string(name, fallback);
  if (!ADDRESS.test(value) || (value.includes('<') && !value.endsWith('>')))
    throw new ConfigError(name, `must be an email address, optionally as "Name <box@host>", got "${value}"`);
  return value;
}

export function readMail(r: EnvReader, env: Env, consoleUrl: string | null): MailConfig | null {
  if (!env.SMTP_URL?.trim()) return null;
  const smtpUrl = r.url('SMTP_URL', '', ['smtp:', 'smtps:']);
  if (!consoleUrl) throw new ConfigError('CONSOLE_URL', 'is required when SMTP_URL is set (mail carries whole links)');
  const retryBaseMs = r.int('MAIL_RETRY_BASE_MS', 30000, 10, 3600000);
  const retryMaxMs = r.int('MAIL_RETRY_MAX_MS', 3600000, 10, 86400000);
  if (retryMaxMs < retryBaseMs) throw new ConfigError('MAIL_RETRY_MAX_MS', 'must not be below MAIL_RETRY_BASE_MS');
  return {
    smtpUrl,
    from: address(r, 'MAIL_FROM'),
    replyTo: env.MAIL_REPLY_TO?.trim() ? address(r, 'MAIL_REPLY_TO') : null,
    pagesUrl: consoleUrl,
    maxAttempts: r.int('MAIL_MAX_ATTEMPTS', 10, 1, 100),
    retryBaseMs,
    retryMaxMs,
    pollMs: r.int('MAIL_POLL_MS', 60000, 10, 600000),
    smtpTimeoutMs: r.int('MAIL_SMTP_TIMEOUT_MS', 10000, 100, 120000),
  };
}
