import { useState } from 'preact/hooks';
import type { Api } from '../../../ui-kit/api';
import { href } from '../../../ui-kit/router';
import { ErrorNote, ScrollTable, useAction } from '../../../ui-kit/ui';
import type { PortalLeadDetails } from '../types.generated';

// Where the page sends the lead: the partner API's own intake, on this host.
const INTAKE = '/api/v1/inbound/leads';

interface Answer {
  status: number;
  ms: number;
  body: { id?: string | null; status?: string; reason?: string | null; error?: string; message?: string };
}

const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');

// A request signed here as the partner's integration signs it (HMAC-SHA256 of the exact bytes sent),
// with the key and secret typed on the page: they stay in this page's memory and go nowhere but in
// this request, as they would from the partner's own server.
async function sendSigned(creds: { key: string; secret: string }, lead: Record<string, string>): Promise<Answer> {
  const raw = JSON.stringify(lead);
  const hmac = await crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(creds.secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const signature = hex(await crypto.subtle.sign('HMAC', hmac, new TextEncoder().encode(raw)));
  const started = performance.now();
  const res = await fetch(INTAKE, {
    method: 'POST',
    credentials: 'omit',
    headers: {
      authorization: `Bearer ${creds.key}`,
      'x-signature': `sha256=${signature}`,
      'x-timestamp': String(Math.floor(Date.now() / 1000)),
      'idempotency-key': crypto.randomUUID(),
      'content-type': 'application/json',
    },
    body: raw,
  });
  return {
    status: res.status,
    ms: Math.round(performance.now() - started),
    body: (await res.json()) as Answer['body'],
  };
}

const FIELDS = [
  ['api_key', 'API key', 'password'],
  ['hmac_secret', 'HMAC secret', 'password'],
  ['phone', 'Phone', 'text'],
  ['country', 'Country', 'text'],
  ['external_id', 'External id', 'text'],
] as const;
type Field = (typeof FIELDS)[number][0];

// A sandbox partner's test lead, sent from the browser through the partner API exactly as an
// integration sends one (the lead is test because the partner is in test mode): the answer, then the
// events we told the partner of and each one's callbacks and postbacks.
export function TestLead({ api }: { api: Api }) {
  const [form, setForm] = useState<Record<Field, string>>({
    api_key: '',
    hmac_secret: '',
    phone: '+447700900123',
    country: 'GB',
    external_id: `portal-test-${Date.now().toString(36)}`,
  });
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [lead, setLead] = useState<PortalLeadDetails | null>(null);
  const look = useAction(async (id: string) =>
    setLead(await api.get<PortalLeadDetails>(`/portal/api/leads/${encodeURIComponent(id)}`)),
  );
  const send = useAction(async () => {
    setAnswer(null);
    setLead(null);
    const { api_key: key, hmac_secret: secret, ...lead } = form;
    const sent = await sendSigned({ key, secret }, { ...lead, source: 'portal-test' });
    setAnswer(sent);
    setForm({ ...form, external_id: `portal-test-${Date.now().toString(36)}` });
    if (sent.body.id) await look.act(sent.body.id);
  });
  return (
    <section class="panel" aria-labelledby="test-lead-title">
      <h2 id="test-lead-title">Send a test lead</h2>
      <p class="muted">
        Through the partner API with your key and secret (used by this page only, never kept): a test lead, left out of
        your reports, answered and called back as a live one.
      </p>
      <form
        class="filters"
        aria-label="Test lead"
        onSubmit={(e) => {
          e.preventDefault();
          void send.act();
        }}
      >
        {FIELDS.map(([f, label, type]) => (
          <div class="field" key={f}>
            <label for={`tl-${f}`}>{label}</label>
            <input
              id={`tl-${f}`}
              type={type as 'text'}
              autocomplete="off"
              required
              value={form[f]}
              onInput={(e) => setForm({ ...form, [f]: (e.target as HTMLInputElement).value.trim() })}
            />
          </div>
        ))}
        <button type="submit" disabled={send.busy}>
          Send test lead
        </button>
      </form>
      <ErrorNote error={send.error ?? look.error} />
      {answer && (
        <div role="status">
          <p>
            HTTP {answer.status} in {answer.ms} ms: <strong>{answer.body.status ?? answer.body.error}</strong>
            {answer.body.reason || answer.body.message ? ` (${answer.body.reason ?? answer.body.message})` : ''}
            {answer.body.id ? (
              <>
                {' '}
                <a class="mono" href={href(`leads/${answer.body.id}`)}>
                  {answer.body.id}
                </a>
              </>
            ) : null}
          </p>
        </div>
      )}
      {lead && <Told lead={lead} busy={look.busy} onRefresh={() => void look.act(lead.id)} />}
    </section>
  );
}

function Told({ lead, busy, onRefresh }: { lead: PortalLeadDetails; busy: boolean; onRefresh: () => void }) {
  return (
    <>
      <ScrollTable label="What we told you" cards>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Sent as</th>
          </tr>
        </thead>
        <tbody>
          {lead.timeline.map((t) => (
            <tr key={t.event_id}>
              <td data-label="Event">{t.event}</td>
              <td data-label="Status">{t.status}</td>
              <td data-label="Sent as">
                {t.deliveries.map((d) => `${d.kind} ${d.state}`).join(', ') || 'not sent yet'}
              </td>
            </tr>
          ))}
          {lead.timeline.length === 0 && (
            <tr>
              <td colSpan={3}>Nothing told yet.</td>
            </tr>
          )}
        </tbody>
      </ScrollTable>
      <button type="button" class="secondary" disabled={busy} onClick={onRefresh}>
        Refresh callbacks
      </button>
    </>
  );
}
