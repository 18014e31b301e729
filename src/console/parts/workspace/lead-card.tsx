import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../../../ui-kit/api';
import { href } from '../../../ui-kit/router';
import { ErrorNote, Notice, PageHeading, ScrollTable, useAction, useLoad, when } from '../../../ui-kit/ui';
import { OutcomeButtons } from './outcome-buttons';

// GET /api/workspace/leads/{id}: the number masked, never an amount.
interface LeadCard {
  id: string;
  affiliate_id: string;
  partner_name: string | null;
  status: string;
  is_depositor: boolean;
  personal_data: 'kept' | 'erased';
  country: string | null;
  country_code: string | null;
  language: string | null;
  source: string | null;
  funnel: string | null;
  phone: string | null;
  callback_at: string | null;
  outcomes: string[];
  created_at: string;
  updated_at: string;
  history: { event_id: string | null; from: string | null; to: string; at: string; why: string }[];
}

// GET /api/leads/{id}/contact: the audited reveal. Kept only while this card is open.
interface Contact {
  phone: string;
  email: string | null;
  full_name: string | null;
}

// Tries for the lead's owner to apply a recorded outcome (the card is read again once a second).
const FOLLOW_TRIES = 15;

export function LeadCardView({ api, id }: { api: Api; id: string }) {
  const card = useLoad(() => api.get<LeadCard>(`/api/workspace/leads/${encodeURIComponent(id)}`), [id]);
  const [contact, setContact] = useState<Contact | null>(null);
  const reveal = useAction(async () =>
    setContact(await api.get<Contact>(`/api/leads/${encodeURIComponent(id)}/contact`)),
  );
  const [recorded, setRecorded] = useState<{ label: string; since: string; tries: number } | null>(null);

  // The outcome goes through crm.agent-actions: the card is read again until the lead's owner has applied it.
  useEffect(() => {
    if (!recorded || !card.data) return undefined;
    if (card.data.updated_at !== recorded.since || recorded.tries >= FOLLOW_TRIES) return undefined;
    const timer = setTimeout(() => {
      setRecorded({ ...recorded, tries: recorded.tries + 1 });
      card.reload();
    }, 1000);
    return () => clearTimeout(timer);
  }, [recorded, card.data]);

  const lead = card.data;
  return (
    <section>
      <PageHeading>Lead {id}</PageHeading>
      <p>
        <a href={href('my-leads')}>Back to my leads</a>
      </p>
      <ErrorNote error={card.error} />
      {lead && (
        <article aria-labelledby="card-title">
          <h2 id="card-title">
            {lead.partner_name ?? lead.affiliate_id}: {lead.country ?? lead.country_code ?? 'no country'}
          </h2>
          <dl class="facts">
            <dt>Number</dt>
            <dd>
              {contact ? (
                <a class="mono" href={`tel:${contact.phone}`}>
                  {contact.phone}
                </a>
              ) : (
                <span class="mono">{lead.phone ?? 'erased'}</span>
              )}
              {!contact && lead.phone && (
                <>
                  {' '}
                  <button type="button" disabled={reveal.busy} onClick={() => void reveal.act()}>
                    Reveal number
                  </button>
                </>
              )}
            </dd>
            {contact?.full_name && [<dt key="n">Name</dt>, <dd key="nv">{contact.full_name}</dd>]}
            {contact?.email && [<dt key="e">Email</dt>, <dd key="ev">{contact.email}</dd>]}
            <dt>Status</dt>
            <dd>
              <strong>{lead.status}</strong>
            </dd>
            <dt>Partner</dt>
            <dd>
              {lead.partner_name ?? '—'} <span class="mono">({lead.affiliate_id})</span>
            </dd>
            <dt>Country</dt>
            <dd>{[...new Set([lead.country, lead.country_code].filter(Boolean))].join(', ') || '—'}</dd>
            <dt>Language</dt>
            <dd>{lead.language ?? '—'}</dd>
            <dt>Source</dt>
            <dd>
              {lead.source ?? '—'}
              {lead.funnel ? ` (${lead.funnel})` : ''}
            </dd>
            <dt>Depositor</dt>
            <dd>{lead.is_depositor ? 'yes' : 'no'}</dd>
            <dt>Callback at</dt>
            <dd>{when(lead.callback_at)}</dd>
            <dt>Created</dt>
            <dd>{when(lead.created_at)}</dd>
          </dl>
          <ErrorNote error={reveal.error} />
          <OutcomeButtons
            api={api}
            id={id}
            outcomes={lead.outcomes}
            onRecorded={(label) => {
              setRecorded({ label, since: lead.updated_at, tries: 0 });
              card.reload();
            }}
          />
          {recorded && (
            <Notice>
              Recorded: {recorded.label}.{lead.updated_at === recorded.since ? ' The status follows in a moment.' : ''}
            </Notice>
          )}
          <h3>History</h3>
          <ScrollTable label="Lead history">
            <thead>
              <tr>
                <th scope="col">At</th>
                <th scope="col">From</th>
                <th scope="col">To</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {lead.history.map((h, i) => (
                <tr key={i}>
                  <td>{when(h.at)}</td>
                  <td>{h.from ?? '—'}</td>
                  <td>{h.to}</td>
                  <td>{h.why}</td>
                </tr>
              ))}
            </tbody>
          </ScrollTable>
        </article>
      )}
    </section>
  );
}
