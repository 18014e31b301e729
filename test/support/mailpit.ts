import { randomBytes } from 'node:crypto';
import { request } from 'undici';

// Mailpit, the real SMTP server of scripts/services.sh: tests send through it and read what it
// received through its HTTP API. Each test mails its own recipients (mailbox()), so tests never
// read each other's mail.
export const SMTP_URL = process.env.SMTP_URL ?? 'smtp://127.0.0.1:1025';
export const MAILPIT_URL = process.env.MAILPIT_URL ?? 'http://127.0.0.1:8025';

// The variables that turn mail on, through Mailpit, with tries close together.
export const mailEnv = (overrides: Record<string, string> = {}): Record<string, string> => ({
  SMTP_URL,
  MAIL_FROM: 'LeadIntake <no-reply@leads.example>',
  MAIL_REPLY_TO: 'support@leads.example',
  CONSOLE_URL: 'https://leads.example',
  MAIL_POLL_MS: '100',
  MAIL_RETRY_BASE_MS: '200',
  MAIL_RETRY_MAX_MS: '1000',
  MAIL_SMTP_TIMEOUT_MS: '2000',
  ...overrides,
});

export const mailbox = (name: string): string => `${name}-${randomBytes(5).toString('hex')}@mail.example`;

export interface DeliveredMail {
  ID: string;
  MessageID: string;
  Subject: string;
  From: { Name: string; Address: string };
  To: { Address: string }[];
  ReplyTo: { Address: string }[];
  Text: string;
  HTML: string;
}

async function get<T>(path: string): Promise<T> {
  const res = await request(`${MAILPIT_URL}${path}`);
  if (res.statusCode !== 200) throw new Error(`Mailpit ${path}: ${res.statusCode}`);
  return (await res.body.json()) as T;
}

// Every message Mailpit holds for the address, whole, oldest first.
export async function mailTo(address: string): Promise<DeliveredMail[]> {
  const found = await get<{ messages: { ID: string }[] }>(
    `/api/v1/search?limit=200&query=${encodeURIComponent(`to:"${address}"`)}`,
  );
  const whole = await Promise.all(found.messages.map((m) => get<DeliveredMail>(`/api/v1/message/${m.ID}`)));
  return whole.reverse();
}

// Waits until the address has at least `count` messages, and returns them.
export async function waitForMail(address: string, count = 1, timeoutMs = 15000): Promise<DeliveredMail[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mail = await mailTo(address);
    if (mail.length >= count) return mail;
    if (Date.now() > deadline) throw new Error(`${address}: ${mail.length} of ${count} mails within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// The one-time link a mail carries (the console's or the portal's), whole.
export const linkIn = (mail: DeliveredMail): string => {
  const match = /https:\/\/leads\.example\/\S+/.exec(mail.Text);
  if (!match) throw new Error(`no link in "${mail.Subject}"`);
  return match[0];
};
