import type { Decoded } from '../../src/shared/kafka/batch-consumer';
import type { LeadDoc, ParkedMessageDoc } from '../../src/shared/mongo/documents';
import type { AgentAction } from '../../src/shared/schemas';
import { decideLead, storeStandsBehind } from '../../src/processor/lifecycle/decide';
import { parkedDoc } from '../../src/processor/lifecycle/records';
import {
  action,
  command,
  context,
  deposit,
  intake,
  lead,
  NOW,
  outcomes,
  PARK_MAX_MS,
  T0,
} from '../support/lifecycle-inputs';

// The pure step of a lifecycle chunk: a lead's messages and the lead as read in, the change, its
// events and feed messages, parked and dead-lettered messages out. No store, no Kafka, the time passed in.

describe('agent actions', () => {
  it('move the lead along the catalogue, in the order they came, each entry naming its message', () => {
    const d = decideLead('le-7', [action('a1', 'contacted', 1), action('a2', 'callback', 2)], lead(), context());
    expect(outcomes(d)).toEqual(['applied', 'applied']);
    expect(d.change?.entries.map((e) => [e.from, e.to, e.source])).toEqual([
      ['assigned', 'contacted', 'agent-action:a1'],
      ['contacted', 'callback', 'agent-action:a2'],
    ]);
    expect(d.change?.set).toMatchObject({ status: 'callback', is_depositor: false });
    expect(d.events.map((e) => [e.event_id, e.event, e.from_status, e.our_status])).toEqual([
      ['le-7:2', 'lead.status_changed', 'assigned', 'contacted'],
      ['le-7:3', 'lead.status_changed', 'contacted', 'callback'],
    ]);
    expect(d.lead?.status).toBe('callback');
  });

  it('dead-letter a move the catalogue forbids and let the others of the chunk apply', () => {
    const d = decideLead(
      'le-7',
      [
        action('a1', 'contacted'),
        action('a2', 'assigned'),
        action('a3', 'ftd'),
        action('a4', 'vip'),
        action('a5', 'trash'),
      ],
      lead(),
      context(),
    );
    expect(outcomes(d)).toEqual(['applied', 'refused', 'refused', 'refused', 'applied']);
    expect(d.refused.map((r) => [r.reason, r.partition])).toEqual([
      ['illegal_transition', 3],
      ['status_needs_deposit', 3],
      ['unknown_status', 3],
    ]);
    expect(d.change?.entries.map((e) => e.to)).toEqual(['contacted', 'trash']);
  });

  it('refuse any move from a terminal status', () => {
    const d = decideLead('le-7', [action('a2', 'contacted')], lead({ status: 'trash' }), context());
    expect(d.refused.map((r) => r.reason)).toEqual(['terminal_status']);
    expect(d.change).toBeNull();
  });

  it('schedule the callback an action asks for, and clear it with the next action', () => {
    const first = decideLead(
      'le-7',
      [action('a1', 'callback', 1, { callback_at: '2026-11-25T10:00:00Z' })],
      lead({ status: 'contacted' }),
      context(),
    );
    expect(first.change?.set.callback_at).toEqual(new Date('2026-11-25T10:00:00Z'));
    const next = decideLead('le-7', [action('a2', 'interested')], first.lead, context());
    expect(next.change?.set).toHaveProperty('callback_at', null);
  });
});

describe('deposits', () => {
  it('make the first deposit an ftd that creates the client, and later ones rtds; amounts stay in the deposit', () => {
    const d = decideLead(
      'le-7',
      [action('a1', 'contacted'), deposit('d1'), deposit('d2', 'deposit', 3)],
      lead(),
      context(),
    );
    expect(outcomes(d)).toEqual(['applied', 'applied', 'applied']);
    expect(d.change?.entries.map((e) => [e.to, e.event])).toEqual([
      ['contacted', 'lead.status_changed'],
      ['ftd', 'lead.ftd'],
      ['rtd', 'lead.rtd'],
    ]);
    expect(d.change?.set).toMatchObject({ status: 'rtd', is_depositor: true, client_id: expect.any(String) });
    expect(d.clients).toEqual([
      expect.objectContaining({ lead_id: 'le-7', partner_id: 'pa-1', first_deposit_id: 'd1', created_at: NOW }),
    ]);
    expect(d.deposits.map((x) => [x._id, x.amount, x.client_id])).toEqual([
      ['d1', '250.00', d.change?.set.client_id],
      ['d2', '250.00', d.change?.set.client_id],
    ]);
    expect(JSON.stringify(d.events)).not.toContain('250.00');
  });

  it('take a chargeback after a deposit as terminal', () => {
    const d = decideLead(
      'le-7',
      [deposit('c1', 'chargeback')],
      lead({ status: 'ftd', client_id: 'cl-7', is_depositor: true }),
      context(),
    );
    expect(d.change?.entries.map((e) => [e.to, e.event])).toEqual([['chargeback', 'lead.status_changed']]);
  });

  it('park a chargeback before any deposit, and dead-letter it once its time is up', () => {
    const early = decideLead('le-7', [deposit('c1', 'chargeback')], lead({ status: 'contacted' }), context());
    expect(outcomes(early)).toEqual(['parked']);
    expect(early.park.map((p) => [p._id, p.reason, p.source.partition])).toEqual([
      ['deposits:c1', 'chargeback_before_deposit', 3],
    ]);
    const parked = {
      ...(early.park[0] as ParkedMessageDoc),
      parked_at: new Date(NOW.getTime() - PARK_MAX_MS - 1),
      source: { ...(early.park[0] as ParkedMessageDoc).source, partition: 5 },
    };
    const late = decideLead(
      'le-7',
      [{ record: deposit('c1', 'chargeback').record, parked }],
      lead({ status: 'contacted' }),
      context(),
    );
    expect(outcomes(late)).toEqual(['refused']);
    expect(late.refused.map((r) => [r.reason, r.partition])).toEqual([['chargeback_before_deposit', 5]]);
    expect(late.unpark).toEqual(['deposits:c1']);
  });

  it('make the ftd of a first deposit that happened before the agent action that ended the lead', () => {
    const ended = decideLead('le-7', [action('a1', 'no_answer', 10)], lead(), context()).lead as LeadDoc;
    expect(outcomes(decideLead('le-7', [deposit('d1', 'deposit', 5)], ended, context()))).toEqual(['applied']);
    expect(decideLead('le-7', [deposit('d2', 'deposit', 15)], ended, context()).refused.map((r) => r.reason)).toEqual([
      'terminal_status',
    ]);
  });
});

describe('a CRM message met again (by its id)', () => {
  it('is a repeat that changes nothing and announces again what it made', () => {
    const once = decideLead('le-7', [action('a1', 'contacted'), deposit('d1')], lead(), context());
    const again = decideLead('le-7', [action('a1', 'contacted'), deposit('d1')], once.lead, context());
    expect(outcomes(again)).toEqual(['repeat', 'repeat']);
    expect(again.change).toBeNull();
    expect(again.events).toEqual(once.events);
    expect(again.deposits.map((x) => x._id)).toEqual(['d1']); // inserted again under its id: nothing new
    expect(storeStandsBehind(again)).toBe(true);
  });

  it('is applied once when a chunk carries it twice, and announced once', () => {
    const d = decideLead('le-7', [action('a1', 'contacted'), action('a1', 'contacted')], lead(), context());
    expect(outcomes(d)).toEqual(['applied', 'repeat']);
    expect(d.change?.entries).toHaveLength(1);
    expect(d.events.map((e) => e.event_id)).toEqual(['le-7:2']);
  });
});

describe('a message for a lead not known', () => {
  it('parks a CRM message until its lead is created (the note left out)', () => {
    const d = decideLead('le-7', [action('a1', 'contacted')], undefined, context());
    expect(outcomes(d)).toEqual(['parked']);
    expect(d.park[0]).toMatchObject({ _id: 'agentActions:a1', reason: 'unknown_lead', parked_at: NOW });
    expect(d.park[0]?.value).not.toHaveProperty('note');
    expect(storeStandsBehind(d)).toBe(false);
  });

  it('applies a parked message once its lead is there, and lets it go from the parked list', () => {
    const parked = parkedDoc(action('a1', 'contacted').record as Decoded<AgentAction>, 'unknown_lead', 2, T0);
    const d = decideLead('le-7', [{ record: action('a1', 'contacted').record, parked }], lead(), context());
    expect(outcomes(d)).toEqual(['applied']);
    expect(d.unpark).toEqual(['agentActions:a1']);
    expect(d.park).toEqual([]);
  });

  it('dead-letters a lead command at once: commands are never parked', () => {
    const d = decideLead('le-7', [command('c1', 'assign')], undefined, context(['ag-2']));
    expect(outcomes(d)).toEqual(['refused']);
    expect(d.refused.map((r) => r.reason)).toEqual(['unknown_lead']);
  });
});

describe('erasure', () => {
  it('erases once; a lead with an agent leaves it (a feed message, no event)', () => {
    const d = decideLead('le-7', [command('e1', 'erase')], lead(), context());
    expect(outcomes(d)).toEqual(['applied']);
    expect(d.change).toMatchObject({
      erase: true,
      entries: [{ erased: true, event: null, source: 'distribution:e1' }],
    });
    expect(d.events).toEqual([]);
    expect(d.feed.map((f) => f.reason)).toEqual(['erased']);
    const again = decideLead(
      'le-7',
      [command('e1', 'erase')],
      { ...(d.lead as LeadDoc), personal_erased_at: NOW },
      context(),
    );
    expect(outcomes(again)).toEqual(['repeat']);
    expect(again.feed).toEqual(d.feed);
  });

  it('leaves a waiting lead without an entry, and out of the waiting list', () => {
    const d = decideLead(
      'le-7',
      [command('e1', 'erase')],
      lead({ status: 'new', agent_id: null, history: [intake] }),
      context(),
    );
    expect(d.change).toMatchObject({ erase: true, entries: [] });
    expect(d.leavesWaiting).toBe(true);
  });

  it('never gives an erased lead to an agent', () => {
    const ctx = context(['ag-2']);
    const d = decideLead(
      'le-7',
      [command('c1', 'assign')],
      lead({ status: 'new', agent_id: null, history: [intake], personal_erased_at: T0 }),
      ctx,
    );
    expect(outcomes(d)).toEqual(['unchanged']);
    expect(ctx.taken).toEqual([]);
  });
});

describe('lead commands', () => {
  const waiting = () => lead({ status: 'new', agent_id: null, history: [intake] });

  it("assign a waiting lead to the roster's agent, which is watched for idleness", () => {
    const d = decideLead('le-7', [command('c1', 'assign')], waiting(), context(['ag-2']));
    expect(d.change?.set).toMatchObject({ status: 'assigned', agent_id: 'ag-2' });
    expect(d.leavesWaiting).toBe(true);
    expect(d.idle).toEqual([{ lead_id: 'le-7', agent_id: 'ag-2', seq: 1 }]);
    expect(d.feed.map((f) => f.reason)).toEqual(['waiting_assigned']);
  });

  it('leave a lead waiting when no agent fits, and do nothing for one assigned meanwhile', () => {
    expect(outcomes(decideLead('le-7', [command('c1', 'assign')], waiting(), context()))).toEqual(['unchanged']);
    expect(outcomes(decideLead('le-7', [command('c1', 'assign')], lead(), context(['ag-2'])))).toEqual(['unchanged']);
  });

  it('hand an idle lead to another agent without an event, keep it when nobody else fits, and let a worked one be', () => {
    const check = command('idle:le-7:1', 'reassign_idle', { agent_id: 'ag-1', assigned_seq: 1 });
    const moved = decideLead('le-7', [check], lead(), context(['ag-1', 'ag-3']));
    expect(moved.change?.entries).toEqual([
      expect.objectContaining({
        to: 'assigned',
        agent_id: 'ag-3',
        event: null,
        why: expect.stringContaining('not worked by ag-1'),
      }),
    ]);
    expect(moved.events).toEqual([]);
    const kept = decideLead('le-7', [check], lead(), context(['ag-1']));
    expect([outcomes(kept), kept.kept, kept.idle]).toEqual([
      ['unchanged'],
      1,
      [{ lead_id: 'le-7', agent_id: 'ag-1', seq: 1 }],
    ]);
    const worked = decideLead('le-7', [action('a1', 'contacted'), check], lead(), context(['ag-3']));
    expect(outcomes(worked)).toEqual(['applied', 'unchanged']);
  });

  it('reassign as a supervisor asks, from where the lead is now', () => {
    const d = decideLead(
      'le-7',
      [command('r1', 'reassign', { to_agent_id: 'ag-9', requested_by: 'sup-1' })],
      lead({ status: 'contacted' }),
      context(),
    );
    expect(d.change?.entries).toEqual([
      expect.objectContaining({ from: 'contacted', to: 'contacted', agent_id: 'ag-9', event: null }),
    ]);
  });
});

it('tells which verdicts the store stands behind: changes and repeats, not refusals or nothing to do', () => {
  expect(storeStandsBehind(decideLead('le-7', [action('a1', 'contacted')], lead(), context()))).toBe(true);
  expect(
    storeStandsBehind(decideLead('le-7', [action('a1', 'contacted'), action('a2', 'assigned')], lead(), context())),
  ).toBe(false);
  expect(storeStandsBehind(decideLead('le-7', [command('c1', 'assign')], lead(), context()))).toBe(false);
});
