import { useState } from 'preact/hooks';
import type { Api } from '../../ui-kit/api';
import { ErrorNote, ScrollTable, useLoad, when } from '../../ui-kit/ui';

// One message of the outbox as GET /api/mail shows it: never its content.
interface MailItem {
  id: string;
  state: 'queued' | 'sending' | 'sent' | 'dead';
  template: string;
  to: string;
  attempts: number;
  last_error: string | null;
  created_at: string;
  next_at: string | null;
}

const SHOWN = { waiting: 'waiting', dead: 'given up (dead)', sent: 'sent (7 days)' } as const;
type Shown = keyof typeof SHOWN;

// The mail the service sends people (invitations, resets, sign-in notices, alerts): what waits for
// the relay, what it gave up on, what went. A dead invitation or reset is made again with a new link.
export function MailOutbox({ api }: { api: Api }) {
  const [shown, setShown] = useState<Shown>('waiting');
  const mail = useLoad(
    () => api.get<{ mail_enabled: boolean; items: MailItem[] }>(`/api/mail?state=${shown}&limit=50`),
    [shown],
  );
  return (
    <section class="panel" aria-labelledby="mail-title">
      <h2 id="mail-title">Mail</h2>
      <div class="filters">
        <div class="field">
          <label for="mail-shown">Show</label>
          <select
            id="mail-shown"
            value={shown}
            onChange={(e) => setShown((e.target as HTMLSelectElement).value as Shown)}
          >
            {Object.entries(SHOWN).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
      </div>
      <ErrorNote error={mail.error} />
      {mail.data && !mail.data.mail_enabled && <p class="muted">Mail is off: no relay is configured (SMTP_URL).</p>}
      {mail.data?.mail_enabled && mail.data.items.length === 0 && <p class="muted">None.</p>}
      {mail.data?.mail_enabled && mail.data.items.length > 0 && (
        <ScrollTable label="Mail messages">
          <thead>
            <tr>
              <th scope="col">Mail</th>
              <th scope="col">To</th>
              <th scope="col">State</th>
              <th scope="col">Tries</th>
              <th scope="col">Last error</th>
              <th scope="col">Queued (UTC)</th>
            </tr>
          </thead>
          <tbody>
            {mail.data.items.map((m) => (
              <tr key={m.id}>
                <td>{m.template}</td>
                <td>{m.to}</td>
                <td>{m.state}</td>
                <td>{m.attempts}</td>
                <td class="mono">{m.last_error ?? '—'}</td>
                <td>{when(m.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </ScrollTable>
      )}
    </section>
  );
}
