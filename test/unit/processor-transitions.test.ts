import { agentMove, depositMove } from '../../src/processor/transitions';
import { DEFAULT_CATALOG, Statuses } from '../../src/shared/status-catalog';

const statuses = new Statuses(DEFAULT_CATALOG);
const lead = (status: string, client_id: string | null = null) => ({
  status,
  is_depositor: client_id !== null,
  client_id,
});

describe('agent moves (spec 3.2)', () => {
  it.each([
    ['new', 'contacted'],
    ['assigned', 'contacted'],
    ['contacted', 'trash'],
    ['contacted', 'no_answer'],
    ['contacted', 'wrong_number'],
    ['contacted', 'callback'],
    ['callback', 'interested'],
  ])('%s -> %s is allowed and announced as lead.status_changed', (from, to) => {
    expect(agentMove(statuses, lead(from), to)).toEqual({
      ok: true,
      to,
      event: 'lead.status_changed',
      isDepositor: false,
      createsClient: false,
    });
  });

  it.each(['trash', 'no_answer', 'wrong_number', 'chargeback', 'rejected'])('terminal %s stays terminal', (from) => {
    expect(agentMove(statuses, lead(from), 'contacted')).toEqual({ ok: false, reason: 'terminal_status' });
  });

  it('refuses deposit statuses from an agent', () => {
    expect(agentMove(statuses, lead('contacted'), 'ftd')).toEqual({ ok: false, reason: 'status_needs_deposit' });
  });

  it('refuses unknown statuses and moves the catalogue does not list', () => {
    expect(agentMove(statuses, lead('contacted'), 'vip')).toEqual({ ok: false, reason: 'unknown_status' });
    expect(agentMove(statuses, lead('contacted'), 'assigned')).toEqual({ ok: false, reason: 'illegal_transition' });
  });

  it('accepts custom statuses from a custom catalogue', () => {
    const custom = new Statuses({
      statuses: [...DEFAULT_CATALOG.statuses, { code: 'vip', terminal: false, scope: 'lead' }],
      transitions: {
        ...DEFAULT_CATALOG.transitions,
        contacted: [...(DEFAULT_CATALOG.transitions.contacted ?? []), 'vip'],
      },
    });
    expect(agentMove(custom, lead('contacted'), 'vip')).toMatchObject({ ok: true, to: 'vip' });
  });
});

describe('deposit moves', () => {
  it('first deposit from contacted is an ftd that creates the client', () => {
    expect(depositMove(statuses, lead('contacted'), 'deposit')).toEqual({
      ok: true,
      to: 'ftd',
      event: 'lead.ftd',
      isDepositor: true,
      createsClient: true,
    });
  });
  it('later deposits are rtds, repeatedly', () => {
    expect(depositMove(statuses, lead('ftd', 'cl-1'), 'deposit')).toEqual({
      ok: true,
      to: 'rtd',
      event: 'lead.rtd',
      isDepositor: true,
      createsClient: false,
    });
    expect(depositMove(statuses, lead('rtd', 'cl-1'), 'deposit')).toMatchObject({
      ok: true,
      to: 'rtd',
      event: 'lead.rtd',
    });
  });
  it('a chargeback after a deposit is a terminal status change', () => {
    expect(depositMove(statuses, lead('rtd', 'cl-1'), 'chargeback')).toEqual({
      ok: true,
      to: 'chargeback',
      event: 'lead.status_changed',
      isDepositor: true,
      createsClient: false,
    });
    expect(depositMove(statuses, lead('chargeback', 'cl-1'), 'deposit')).toEqual({
      ok: false,
      reason: 'terminal_status',
    });
  });
  it.each(['new', 'assigned', 'callback', 'interested'])(
    'a first deposit is never dropped: from %s it is an ftd too',
    (from) => {
      expect(depositMove(statuses, lead(from), 'deposit')).toEqual({
        ok: true,
        to: 'ftd',
        event: 'lead.ftd',
        isDepositor: true,
        createsClient: true,
      });
    },
  );
  it.each(['trash', 'no_answer', 'wrong_number', 'rejected'])(
    'no deposit applies to a lead that ended (%s)',
    (from) => {
      expect(depositMove(statuses, lead(from), 'deposit')).toEqual({ ok: false, reason: 'terminal_status' });
    },
  );
  describe('ordered by when they happened (occurred_at)', () => {
    const ended = (status: string, at: string, source = 'agent-action:a1') => ({
      ...lead(status),
      history: [
        { to: 'contacted', at: new Date('2026-11-20T09:00:00Z'), source: 'agent-action:a0' },
        { to: status, at: new Date(at), source },
      ],
    });
    it.each(['trash', 'no_answer', 'wrong_number'])(
      'a first deposit that happened before the agent ended the lead (%s) still makes the ftd',
      (status) => {
        expect(
          depositMove(statuses, ended(status, '2026-11-20T10:00:00Z'), 'deposit', new Date('2026-11-20T09:59:59Z')),
        ).toEqual({ ok: true, to: 'ftd', event: 'lead.ftd', isDepositor: true, createsClient: true });
      },
    );
    it('a deposit that happened after the lead ended is refused', () => {
      expect(
        depositMove(statuses, ended('trash', '2026-11-20T10:00:00Z'), 'deposit', new Date('2026-11-20T10:00:01Z')),
      ).toEqual({ ok: false, reason: 'terminal_status' });
    });
    it('an intake rejection or a chargeback ends a lead for good, whenever the deposit happened', () => {
      expect(
        depositMove(
          statuses,
          ended('rejected', '2026-11-20T10:00:00Z', 'intake'),
          'deposit',
          new Date('2026-11-20T08:00:00Z'),
        ),
      ).toEqual({ ok: false, reason: 'terminal_status' });
      expect(
        depositMove(
          statuses,
          { ...ended('chargeback', '2026-11-20T10:00:00Z', 'deposit:d2'), client_id: 'cl-1' },
          'deposit',
          new Date('2026-11-20T08:00:00Z'),
        ),
      ).toEqual({ ok: false, reason: 'terminal_status' });
    });
  });
  it('a chargeback before any deposit waits for the deposit', () => {
    expect(depositMove(statuses, lead('contacted'), 'chargeback')).toEqual({
      ok: false,
      reason: 'chargeback_before_deposit',
      wait: true,
    });
  });
});

describe('status catalogue', () => {
  it('refuses a catalogue that names unknown statuses or moves out of a terminal one', () => {
    expect(() => new Statuses({ statuses: DEFAULT_CATALOG.statuses, transitions: { new: ['nope'] } })).toThrow(
      /unknown status/,
    );
    expect(() => new Statuses({ statuses: DEFAULT_CATALOG.statuses, transitions: { trash: ['new'] } })).toThrow(
      /terminal/,
    );
  });
});
