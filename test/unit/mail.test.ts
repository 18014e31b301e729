import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig } from '../../src/shared/config';
import { afterFailure, retryDelayMs } from '../../src/shared/mail/outbox-state';
import { renderMail, TEMPLATE_NAMES, TEMPLATE_VALUES } from '../../src/shared/mail/templates';

// Mail: its settings, the outbox's retry decisions and the templates.
const base = {
  ROLE: 'dispatcher',
  ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  HASH_KEY: randomBytes(32).toString('base64'),
};
const relay = {
  ...base,
  SMTP_URL: 'smtp://relay.example:587',
  MAIL_FROM: 'LeadIntake <no-reply@leads.example>',
  CONSOLE_URL: 'https://leads.example',
};
const configError = (env: Record<string, string>): string => {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.variable;
    throw err;
  }
  throw new Error('no ConfigError');
};

describe('mail settings', () => {
  it('are off without SMTP_URL', () => {
    expect(loadConfig(base).mail).toBeNull();
  });

  it('take the relay, the addresses and the tries, with defaults', () => {
    expect(loadConfig({ ...relay, MAIL_REPLY_TO: 'support@leads.example' }).mail).toEqual({
      smtpUrl: 'smtp://relay.example:587',
      from: 'LeadIntake <no-reply@leads.example>',
      replyTo: 'support@leads.example',
      pagesUrl: 'https://leads.example',
      maxAttempts: 10,
      retryBaseMs: 30000,
      retryMaxMs: 3600000,
      pollMs: 60000,
      smtpTimeoutMs: 10000,
    });
  });

  it('refuse a relay without a from-address or a pages address, or a bad address or URL, naming the variable', () => {
    const { MAIL_FROM: _f, ...noFrom } = relay;
    expect(configError(noFrom)).toBe('MAIL_FROM');
    const { CONSOLE_URL: _c, ...noPages } = relay;
    expect(configError(noPages)).toBe('CONSOLE_URL');
    expect(configError({ ...relay, MAIL_FROM: 'not an address' })).toBe('MAIL_FROM');
    expect(configError({ ...relay, MAIL_REPLY_TO: 'a@b.example\r\nBcc: x@y.example' })).toBe('MAIL_REPLY_TO');
    expect(configError({ ...relay, SMTP_URL: 'http://relay.example' })).toBe('SMTP_URL');
    expect(configError({ ...relay, MAIL_RETRY_BASE_MS: '5000', MAIL_RETRY_MAX_MS: '1000' })).toBe('MAIL_RETRY_MAX_MS');
  });
});

describe('the outbox after a failed try', () => {
  const policy = { maxAttempts: 4, retryBaseMs: 1000, retryMaxMs: 5000 };
  const now = new Date('2030-01-01T00:00:00Z');

  it('waits the base, doubled after each try, capped', () => {
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(n, policy))).toEqual([1000, 2000, 4000, 5000, 5000]);
  });

  it('queues another try until the tries are used up, then gives up', () => {
    expect(afterFailure(1, false, now, policy)).toEqual({ state: 'queued', next_at: new Date('2030-01-01T00:00:01Z') });
    expect(afterFailure(3, false, now, policy)).toEqual({ state: 'queued', next_at: new Date('2030-01-01T00:00:04Z') });
    expect(afterFailure(4, false, now, policy)).toEqual({ state: 'dead', dead_at: now });
  });

  it('gives up at once on a refusal the relay means for good', () => {
    expect(afterFailure(1, true, now, policy)).toEqual({ state: 'dead', dead_at: now });
  });
});

describe('the templates', () => {
  it('each load, fill their values and keep the subject one line', () => {
    for (const name of TEMPLATE_NAMES) {
      const values = Object.fromEntries(TEMPLATE_VALUES[name].map((k) => [k, `${k}\r\nBcc: x`]));
      const mail = renderMail(name, values as never);
      expect(mail.subject).not.toMatch(/[\r\n]/);
      expect(mail.text).not.toMatch(/\{\{/);
    }
    expect(renderMail('password-reset', { service: 'LeadIntake', link: 'https://x/l', expires_at: 'soon' })).toEqual({
      subject: 'Set a new LeadIntake password',
      text: expect.stringContaining('https://x/l'),
    });
  });
});
