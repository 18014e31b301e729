import { createTransport } from 'nodemailer';
import type { MailConfig } from '../config';
import type { RenderedMail } from './templates';

export type RelayOutcome = { ok: true } | { ok: false; error: string; permanent: boolean };

export interface MailRelay {
  send(id: string, to: string, mail: RenderedMail): Promise<RelayOutcome>;
  close(): void;
}

// The SMTP relay, through nodemailer: one connection a message (a few mails an hour need no pool).
export function smtpRelay(config: MailConfig, host: string): MailRelay {
  const transport = createTransport(
    {
      url: config.smtpUrl,
      connectionTimeout: config.smtpTimeoutMs,
      greetingTimeout: config.smtpTimeoutMs,
      socketTimeout: config.smtpTimeoutMs,
    },
    { from: config.from, ...(config.replyTo ? { replyTo: config.replyTo } : {}) },
  );
  return {
    async send(id, to, mail) {
      try {
        // The Message-ID follows the outbox id, so a message tried twice is one message to its reader.
        await transport.sendMail({ to, subject: mail.subject, text: mail.text, messageId: `<${id}@${host}>` });
        return { ok: true };
      } catch (err) {
        const { responseCode, code } = err as { responseCode?: number; code?: string };
        const error = `${code ?? 'error'}${responseCode ? ` ${responseCode}` : ''}`;
        // A relay's 5xx to this message or its recipient is final; anything else (no answer, a refused
        // connection, a refused login) is worth another try once the relay or its settings are fixed.
        const permanent =
          responseCode !== undefined && responseCode >= 500 && (code === 'EENVELOPE' || code === 'EMESSAGE');
        return { ok: false, error, permanent };
      }
    },
    close: () => transport.close(),
  };
}
