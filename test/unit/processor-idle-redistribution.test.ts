import { idleCheck, pendingAssignment, stillIdle } from '../../src/processor/idle-redistribution';
import { eventsOf } from '../../src/processor/lead-events';
import type { LeadDoc, StatusChange } from '../../src/shared/mongo/documents';

const at = new Date('2026-11-23T10:00:00Z');
const entry = (from: string | null, to: string, over: Partial<StatusChange> = {}): StatusChange => ({
  from,
  to,
  at,
  why: '',
  source: 'distribution',
  event: 'lead.status_changed',
  is_depositor: false,
  ...over,
});

type Lead = Pick<LeadDoc, '_id' | 'partner_id' | 'external_id' | 'status' | 'agent_id' | 'history'>;
const lead = (history: StatusChange[], agent: string | null = 'ag-a'): Lead => ({
  _id: 'le-9',
  partner_id: 'pa-1',
  external_id: 'x-9',
  status: history[history.length - 1]!.to,
  agent_id: agent,
  history,
});

const accepted = entry(null, 'new', { event: 'lead.accepted', source: 'intake' });
const assigned = entry('new', 'assigned', { agent_id: 'ag-a' });

describe('idle redistribution', () => {
  it('watches a lead whose last change assigned it', () => {
    expect(pendingAssignment(lead([accepted, assigned]))).toEqual({ lead_id: 'le-9', agent_id: 'ag-a', seq: 1 });
    expect(pendingAssignment(lead([accepted], null))).toBeNull();
    expect(
      pendingAssignment(lead([accepted, assigned, entry('assigned', 'contacted', { source: 'agent-action:1' })])),
    ).toBeNull();
  });

  it('asks once per assignment, under a fixed command id', () => {
    const check = idleCheck({ lead_id: 'le-9', agent_id: 'ag-a', seq: 1 }, at);
    expect(check).toEqual({
      command_id: 'idle:le-9:1',
      lead_id: 'le-9',
      kind: 'reassign_idle',
      agent_id: 'ag-a',
      assigned_seq: 1,
      issued_at: at.toISOString(),
    });
  });

  it('reassigns only a lead still as the checked assignment left it', () => {
    const check = { agent_id: 'ag-a', assigned_seq: 1 };
    expect(stillIdle(lead([accepted, assigned]), check)).toBe(true);
    // Worked meanwhile: an agent action moved it on.
    expect(
      stillIdle(lead([accepted, assigned, entry('assigned', 'contacted', { source: 'agent-action:1' })]), check),
    ).toBe(false);
    // Already handed to another agent (a later check, or a repeat of this one).
    const moved = entry('assigned', 'assigned', { event: null, agent_id: 'ag-b', source: 'distribution:idle:le-9:1' });
    expect(stillIdle(lead([accepted, assigned, moved], 'ag-b'), check)).toBe(false);
    expect(stillIdle(lead([accepted, assigned, moved], 'ag-b'), { agent_id: 'ag-b', assigned_seq: 2 })).toBe(true);
  });

  it('announces no event for a change of agent: the partner hears only of statuses', () => {
    const moved = entry('assigned', 'assigned', { event: null, agent_id: 'ag-b' });
    const events = eventsOf(lead([accepted, assigned, moved], 'ag-b'));
    expect(events.map((e) => e.event_id)).toEqual(['le-9:0', 'le-9:1']);
  });
});
