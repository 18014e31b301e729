import { announce, entriesFrom } from '../../src/processor/announcements';
import {
  assignmentsAt,
  changeReason,
  erasureEntry,
  holderOf,
  type FeedLead,
} from '../../src/processor/assignment-feed';
import { pendingAssignment, stillIdle } from '../../src/processor/idle-redistribution';
import { assignment, newLeadDoc } from '../../src/processor/new-lead';
import type { LeadDoc, StatusChange } from '../../src/shared/mongo/documents';
import type { IntakeCommand } from '../../src/shared/schemas';
import { DEFAULT_CATALOG, Statuses } from '../../src/shared/status-catalog';
import { validatorFor } from '../../src/shared/schemas';

// The assignment feed as a projection of a lead's history: which entries give the lead to an agent
// or take it away, why, and the message each makes, the same however often it is announced.
const statuses = new Statuses(DEFAULT_CATALOG);
const isTerminal = (s: string) => statuses.isTerminal(s);
const created = new Date('2026-11-23T09:00:00Z');
const t = (min: number) => new Date(created.getTime() + min * 60_000);
const entry = (from: string | null, to: string, over: Partial<StatusChange> = {}): StatusChange => ({
  from,
  to,
  at: t(1),
  why: '',
  source: 'agent-action:x',
  event: 'lead.status_changed',
  is_depositor: false,
  ...over,
});

const accepted = entry(null, 'new', { event: 'lead.accepted', source: 'intake', at: t(0) });
const atIntake = { ...assignment('new', 'ag-a', t(0), false) };
const waitingAssigned = { ...assignment('new', 'ag-a', t(5), false), source: 'distribution:3f1c' };
const idleMoved = entry('assigned', 'assigned', {
  event: null,
  agent_id: 'ag-b',
  source: 'distribution:idle:le-9:1',
  at: t(35),
});
const reassigned = entry('assigned', 'assigned', {
  event: null,
  agent_id: 'ag-c',
  source: 'distribution:supervisor-7',
  at: t(40),
});
const contacted = entry('assigned', 'contacted', { at: t(50) });
const trash = entry('contacted', 'trash', { at: t(60) });

const lead = (history: StatusChange[], over: Partial<LeadDoc> = {}): FeedLead & LeadDoc => ({
  _id: 'le-9',
  seq: 9,
  partner_id: 'pa-1',
  external_id: 'x-9',
  idempotency_key: 'k',
  status: history.at(-1)!.to,
  is_depositor: false,
  client_id: null,
  agent_id: [...history].reverse().find((h) => h.agent_id)?.agent_id ?? null,
  reason: null,
  history,
  country_code: 'DE',
  language: 'de',
  source: 'google',
  funnel: 'crypto-1',
  phone_enc: 'enc',
  phone_hash: 'h'.repeat(64),
  email_enc: 'enc',
  personal_enc: 'enc',
  created_at: created,
  updated_at: t(60),
  ...over,
});

describe('assignment feed', () => {
  it('gives a lead at intake with every routing field and nothing personal', () => {
    const [msg, ...rest] = assignmentsAt(lead([accepted, atIntake]), [0, 1], isTerminal);
    expect(rest).toEqual([]);
    expect(msg).toEqual({
      event_id: 'le-9:1',
      lead_id: 'le-9',
      agent_id: 'ag-a',
      previous_agent_id: null,
      partner_id: 'pa-1',
      external_lead_id: 'x-9',
      status: 'assigned',
      country_code: 'DE',
      language: 'de',
      source: 'google',
      funnel: 'crypto-1',
      reason: 'intake',
      created_at: created.toISOString(),
      at: t(0).toISOString(),
    });
    expect(validatorFor('lead-assignment.json')(msg)).toBe(true);
    expect(JSON.stringify(msg)).not.toMatch(/enc|phone|email|h{64}/);
  });

  it('names why each change happened, and who had the lead before', () => {
    const history = [accepted, waitingAssigned, idleMoved, reassigned, contacted, trash];
    const msgs = assignmentsAt(lead(history), entriesFrom({ history }), isTerminal);
    expect(msgs.map((m) => [m.event_id, m.reason, m.previous_agent_id, m.agent_id, m.status])).toEqual([
      ['le-9:1', 'waiting_assigned', null, 'ag-a', 'assigned'],
      ['le-9:2', 'idle_redistributed', 'ag-a', 'ag-b', 'assigned'],
      ['le-9:3', 'reassigned', 'ag-b', 'ag-c', 'assigned'],
      ['le-9:5', 'terminal', 'ag-c', null, 'trash'],
    ]);
    expect(msgs.map((m) => m.at)).toEqual([t(5), t(35), t(40), t(60)].map((d) => d.toISOString()));
  });

  it('announces only the entries asked for, identically each time (a redelivered change)', () => {
    const l = lead([accepted, atIntake, idleMoved]);
    expect(assignmentsAt(l, [2], isTerminal)).toEqual(assignmentsAt(l, [2], isTerminal));
    expect(assignmentsAt(l, [2], isTerminal).map((m) => m.event_id)).toEqual(['le-9:2']);
    expect(assignmentsAt(l, [0], isTerminal)).toEqual([]);
  });

  it('says nothing for a lead that never had an agent: waiting, rejected, or ended before distribution', () => {
    expect(assignmentsAt(lead([accepted, entry('new', 'trash')]), [0, 1], isTerminal)).toEqual([]);
    expect(
      assignmentsAt(lead([entry(null, 'rejected', { event: 'lead.rejected', source: 'intake' })]), [0], isTerminal),
    ).toEqual([]);
    expect(changeReason(entry('new', 'no_answer'), null, isTerminal)).toBeNull();
  });

  it('takes the lead from its agent once: a deposit after a terminal status does not give it back', () => {
    const ended = entry('assigned', 'no_answer');
    const ftd = entry('no_answer', 'ftd', { event: 'lead.ftd', source: 'deposit:d1', is_depositor: true });
    const msgs = assignmentsAt(lead([accepted, atIntake, ended, ftd]), [0, 1, 2, 3], isTerminal);
    expect(msgs.map((m) => [m.reason, m.agent_id])).toEqual([
      ['intake', 'ag-a'],
      ['terminal', null],
    ]);
  });

  it('an erasure takes the lead from its agent in an entry of its own, with no event', () => {
    const l = lead([accepted, atIntake]);
    const erased = erasureEntry(l, isTerminal, { source: 'distribution:erase-1', at: t(10) });
    expect(erased).toMatchObject({
      from: 'assigned',
      to: 'assigned',
      event: null,
      erased: true,
      source: 'distribution:erase-1',
    });
    expect(erased).not.toHaveProperty('agent_id');
    const after = lead([accepted, atIntake, erased!]);
    expect(assignmentsAt(after, [2], isTerminal)).toEqual([
      expect.objectContaining({ event_id: 'le-9:2', reason: 'erased', agent_id: null, previous_agent_id: 'ag-a' }),
    ]);
    expect(holderOf(after, isTerminal)).toBeNull();
    // No event for the partner, and no idle check: the lead is with nobody.
    expect(announce(after, [2], isTerminal).events).toEqual([]);
    expect(pendingAssignment(after)).toBeNull();
    expect(stillIdle(after, { agent_id: 'ag-a', assigned_seq: 1 })).toBe(false);
  });

  it('an erasure of a lead nobody has adds no entry', () => {
    expect(erasureEntry(lead([accepted]), isTerminal, { source: 'distribution:e', at: t(1) })).toBeNull();
    expect(
      erasureEntry(lead([accepted, atIntake, contacted, trash]), isTerminal, { source: 'distribution:e', at: t(61) }),
    ).toBeNull();
  });

  it('announces a change’s lead events and feed messages from the same entries', () => {
    const cmd = {
      partner_id: 'pa-1',
      idempotency_key: 'k',
      lead: {
        external_id: 'x-9',
        phone_enc: 'p',
        personal_enc: 'e',
        country_code: 'DE',
        language: 'de',
      },
    } as unknown as IntakeCommand;
    const doc = newLeadDoc(
      cmd,
      'le-9',
      { decidedAt: t(0), createdAt: created },
      { kind: 'accepted', agent: { _id: 'ag-a' } },
      {
        risk: { score: 0, reasons: [], ip_country: null },
        test: false,
        hashes: { phone_hash: 'h'.repeat(64), email_hash: null },
      },
    );
    const said = announce(doc, entriesFrom(doc), isTerminal);
    expect(said.events.map((e) => e.event_id)).toEqual(['le-9:0', 'le-9:1']);
    expect(said.feed).toEqual([
      expect.objectContaining({ event_id: 'le-9:1', reason: 'intake', agent_id: 'ag-a', source: null, funnel: null }),
    ]);
    expect(entriesFrom(doc, 1)).toEqual([1]);
    expect(entriesFrom(doc, 5)).toEqual([]);
  });
});
