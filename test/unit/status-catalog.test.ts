import { DEFAULT_CATALOG, Statuses } from '../../src/shared/status-catalog';

// The table of spec 3.1, row for row: each default code, whom it applies to, and whether it ends
// the lead. An installation may replace the catalogue (STATUS_CATALOG_FILE); this is the default.
const SPEC_3_1 = [
  ['new', 'both', false],
  ['assigned', 'both', false],
  ['contacted', 'both', false],
  ['callback', 'both', false],
  ['interested', 'both', false],
  ['no_answer', 'lead', true],
  ['wrong_number', 'lead', true],
  ['trash', 'lead', true],
  ['ftd', 'client', false],
  ['rtd', 'client', false],
  ['chargeback', 'client', true],
] as const;

describe('the default status catalogue', () => {
  const statuses = new Statuses(DEFAULT_CATALOG);

  it('has the codes of spec 3.1 and no other', () =>
    expect(DEFAULT_CATALOG.statuses.map((s) => s.code)).toEqual(SPEC_3_1.map(([code]) => code)));

  it.each(SPEC_3_1)('has %s (scope %s, terminal: %s)', (code, scope, terminal) => {
    expect(DEFAULT_CATALOG.statuses.find((s) => s.code === code)).toEqual({ code, scope, terminal });
    expect(statuses.isTerminal(code)).toBe(terminal);
  });
});
