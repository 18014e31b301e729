import type { Mailer } from '../shared/mail/mailer';
import { linkAnswer } from './links';

type Made = { token: string; expires_at: Date };
type LinkTemplate = 'manager-invitation' | 'portal-invitation' | 'password-reset';

export type LinkMailed = { mailed_to: string; mail_id: string; expires_at: Date };
export type LinkDelivered = ReturnType<typeof linkAnswer> | LinkMailed;

// Where a one-time link goes once made: by mail to its account when a relay is configured, so the
// link reaches only the person it is for; in the answer to its maker when none is (the maker passes
// it on), or when `inAnswer` says the maker must have it (the break-glass set-up of an owner).
export async function deliverLink(
  mailer: Mailer | null,
  made: Made,
  path: (token: string) => string,
  base: string | null,
  mail: { template: LinkTemplate; to: string; inAnswer?: boolean },
): Promise<LinkDelivered> {
  if (!mailer || mail.inAnswer) return linkAnswer(made, path, base);
  const mail_id = await mailer.send(mail.template, mail.to, {
    link: mailer.link(path(made.token)),
    expires_at: made.expires_at.toISOString().slice(0, 16).replace('T', ' '),
  });
  return { mailed_to: mail.to, mail_id, expires_at: made.expires_at };
}
