import { when } from './ui';

// A one-time link the server mailed to its person instead of showing it (a relay is configured).
export interface LinkMailed {
  mailed_to: string;
  mail_id: string;
  expires_at: string;
}

export const isMailed = (link: object): link is LinkMailed => 'mailed_to' in link;

// Where the link went: nothing to copy, the person reads it in their mail.
export function MailedNote({ title, link, onDone }: { title: string; link: LinkMailed; onDone: () => void }) {
  return (
    <div class="secrets" role="status">
      <h2>{title}</h2>
      <p>
        The one-time link went by mail to <strong>{link.mailed_to}</strong>; it works once, until{' '}
        {when(link.expires_at)} UTC.
      </p>
      <button type="button" onClick={onDone}>
        Done
      </button>
    </div>
  );
}
