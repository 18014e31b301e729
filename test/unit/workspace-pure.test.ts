import { nextQueueRead, QUEUE_POLL_MS } from '../../src/console/parts/workspace/queue-types';
import { supervisorReassign } from '../../src/processor/supervisor-reassign';
import { changeReason } from '../../src/processor/assignment-feed';
import { inSegment, type QueuedLead } from '../../src/manager/workspace/agent-queue-reader';
import { maskPhone } from '../../src/manager/workspace/phone-mask';
import { allowedOutcomes, callbackProblem, outcomeAction, outcomeRefusal } from '../../src/manager/workspace/outcomes';
import { queueEntries, queueGroup, queueMoves, type Queued } from '../../src/shared/store/agent-queue';
import { DEFAULT_CATALOG, Statuses } from '../../src/shared/status-catalog';

const statuses = new Statuses(DEFAULT_CATALOG);
const isTerminal = (s: string) => statuses.isTerminal(s);
const created = new Date('2026-11-20T10:00:00Z');
const lead = (over: Partial<Queued> = {}): Queued => ({
  _id: 'le-7',
  status: 'assigned',
  agent_id: 'ag-1',
  created_at: created,
  callback_at: null,
  ...over,
});

describe('the agent queue read model', () => {
  it('puts an open lead in one part of its agent queue: callback, new or worked', () => {
    expect(queueGroup(lead(), isTerminal)).toBe('new');
    expect(queueGroup(lead({ status: 'contacted' }), isTerminal)).toBe('worked');
    expect(queueGroup(lead({ status: 'callback', callback_at: new Date('2026-11-21T09:00:00Z') }), isTerminal)).toBe(
      'callback',
    );
    for (const gone of [
      lead({ status: 'trash' }),
      lead({ agent_id: null, status: 'new' }),
      lead({ personal_erased_at: created }),
    ])
      expect(queueGroup(gone, isTerminal)).toBeNull();
    expect(
      queueEntries(lead({ status: 'callback', callback_at: new Date('2026-11-21T09:00:00Z') }), isTerminal),
    ).toEqual([{ prefix: 'qc|ag-1', at: new Date('2026-11-21T09:00:00Z'), ref: 'le-7' }]);
  });

  it('moves the entry with the agent, the callback time and the end of the lead', () => {
    const contacted = lead({ status: 'contacted' });
    expect(queueMoves(lead(), contacted, isTerminal)).toEqual({
      put: queueEntries(contacted, isTerminal),
      remove: queueEntries(lead(), isTerminal),
    });
    expect(queueMoves(contacted, { ...contacted, status: 'interested' }, isTerminal)).toEqual({ put: [], remove: [] });
    const other = lead({ agent_id: 'ag-2' });
    expect(queueMoves(lead(), other, isTerminal).put.map((e) => e.prefix)).toEqual(['qn|ag-2']);
    expect(queueMoves(contacted, { ...contacted, status: 'no_answer' }, isTerminal)).toEqual({
      put: [],
      remove: queueEntries(contacted, isTerminal),
    });
    const first = lead({ status: 'callback', callback_at: new Date('2026-11-21T09:00:00Z') });
    const later = { ...first, callback_at: new Date('2026-11-22T09:00:00Z') };
    expect(queueMoves(first, later, isTerminal)).toEqual({
      put: queueEntries(later, isTerminal),
      remove: queueEntries(first, isTerminal),
    });
  });

  it("shows a callback as due once its time has come, and only its own agent's", () => {
    const now = new Date('2026-11-21T09:00:00Z');
    const stored = {
      ...lead({ status: 'callback', callback_at: now }),
      partner_id: 'pa-1',
      is_depositor: false,
      updated_at: now,
    } as QueuedLead;
    expect(inSegment(stored, 'ag-1', 'callback_due', now, isTerminal)).toBe(true);
    expect(inSegment(stored, 'ag-1', 'callback_later', now, isTerminal)).toBe(false);
    expect(inSegment(stored, 'ag-1', 'callback_due', new Date(now.getTime() - 1), isTerminal)).toBe(false);
    expect(inSegment(stored, 'ag-2', 'callback_due', now, isTerminal)).toBe(false);
  });
});

describe('the masked number', () => {
  it('shows the country code, two digits and the last three, never more', () => {
    expect(maskPhone('+447911123456')).toBe('+44 79** ***456');
    expect(maskPhone('+4915112345001')).toBe('+49 15** ****001');
    expect(maskPhone('+12025550123')).toBe('+1 20** ***123');
    // A short national number shows less, and always hides four digits at least.
    expect(maskPhone('+3531234')).toBe('+353 ****');
    expect(maskPhone('+35312345')).toBe('+353 ****5');
  });
});

describe('outcomes', () => {
  const now = new Date('2026-11-21T09:00:00Z');

  it('offers what the catalogue allows from the status', () => {
    expect(allowedOutcomes(statuses, 'assigned')).toEqual([
      'contacted',
      'callback',
      'interested',
      'no_answer',
      'wrong_number',
      'trash',
    ]);
    expect(allowedOutcomes(statuses, 'callback')).toEqual([
      'contacted',
      'interested',
      'no_answer',
      'wrong_number',
      'trash',
    ]);
    expect(allowedOutcomes(statuses, 'trash')).toEqual([]);
    expect(outcomeRefusal(statuses, 'ftd', 'contacted')).toBe('a lead that is ftd cannot become contacted');
  });

  it('needs a time for a callback, and only for one', () => {
    expect(callbackProblem('callback', undefined, now)).toMatch(/needs a date and time/);
    expect(callbackProblem('callback', '2026-11-21T10:00:00Z', now)).toBeNull();
    expect(callbackProblem('callback', '2026-11-21T08:00:00Z', now)).toMatch(/has passed/);
    expect(callbackProblem('callback', '2028-11-21T08:00:00Z', now)).toMatch(/a year/);
    expect(callbackProblem('contacted', '2026-11-21T10:00:00Z', now)).toMatch(/only a callback/);
  });

  it('is an agent action as a CRM would publish it', () => {
    const action = outcomeAction('le-7', 'ag-1', 'callback', '2026-11-21T10:00:00+01:00', now);
    expect(action).toEqual({
      action_id: expect.stringMatching(/^ws-[0-9a-f-]{36}$/),
      lead_id: 'le-7',
      agent_id: 'ag-1',
      status: 'callback',
      occurred_at: now.toISOString(),
      callback_at: '2026-11-21T09:00:00.000Z',
    });
    expect(outcomeAction('le-7', 'ag-1', 'trash', undefined, now)).not.toHaveProperty('callback_at');
  });
});

describe("a supervisor's reassignment", () => {
  const open = { status: 'contacted', is_depositor: false, agent_id: 'ag-1' };

  it('hands an open lead to the named agent, status unchanged, no event; the feed says reassigned', () => {
    const move = supervisorReassign(open, { to_agent_id: 'ag-2', requested_by: 'acc-9' }, isTerminal);
    expect(move).toMatchObject({
      ok: true,
      to: 'contacted',
      event: null,
      agentId: 'ag-2',
      why: 'reassigned from ag-1 to ag-2 by acc-9',
    });
    expect(changeReason({ to: 'contacted', source: 'distribution:3f2a', agent_id: 'ag-2' }, 'ag-1', isTerminal)).toBe(
      'reassigned',
    );
  });

  it('does nothing to a lead that ended, was erased, has no agent or has that agent already', () => {
    for (const lead of [
      { ...open, status: 'trash' },
      { ...open, personal_erased_at: created },
      { ...open, agent_id: null },
      { ...open, agent_id: 'ag-2' },
    ]) {
      expect(supervisorReassign(lead, { to_agent_id: 'ag-2' }, isTerminal)).toBeNull();
    }
  });
});

describe("the My leads page's clock", () => {
  const now = Date.parse('2026-11-21T09:00:00Z');

  it('reads the queue again when the next callback comes due, else every 15 seconds', () => {
    expect(nextQueueRead([], now)).toBe(QUEUE_POLL_MS);
    expect(
      nextQueueRead(
        [
          { queue: 'callback_later', callback_at: '2026-11-21T09:00:04Z' },
          { queue: 'new', callback_at: null },
        ],
        now,
      ),
    ).toBe(4250);
    expect(nextQueueRead([{ queue: 'callback_later', callback_at: '2026-11-21T10:00:00Z' }], now)).toBe(QUEUE_POLL_MS);
    // A due one is shown already: it does not make the page read on and on.
    expect(nextQueueRead([{ queue: 'callback_due', callback_at: '2026-11-21T08:59:00Z' }], now)).toBe(QUEUE_POLL_MS);
  });
});
