import { inPartnerScope, partnersToRead } from '../../src/manager/partner-scope';
import { readPlan, unitsOf } from '../../src/manager/reports/report-reader';

// What an affiliate manager's lists and reports read: one view per partner in scope, nothing else.
describe('partner scope', () => {
  const scope = new Set(['pa-b', 'pa-a']);

  it("reads every partner unscoped, the scope's partners in order otherwise", () => {
    expect(partnersToRead(null, undefined)).toBeNull();
    expect(partnersToRead(scope, undefined)).toEqual(['pa-a', 'pa-b']);
    expect(partnersToRead(new Set(), undefined)).toEqual([]);
  });

  it("reads a filter's partner only inside the scope (outside: an empty page, like an unknown partner)", () => {
    expect(partnersToRead(null, 'pa-x')).toEqual(['pa-x']);
    expect(partnersToRead(scope, 'pa-a')).toEqual(['pa-a']);
    expect(partnersToRead(scope, 'pa-x')).toEqual([]);
    expect(inPartnerScope(scope, 'pa-x')).toBe(false);
    expect(inPartnerScope(null, 'pa-x')).toBe(true);
  });
});

describe('report units under a scope', () => {
  it("names every unit of each plan part, so a partner's documents are read by _id", () => {
    const plan = readPlan('2026-01-30', '2026-04-02', false);
    const units = plan.flatMap((p) => unitsOf(p).map((u) => `${p.level}|${u}`));
    expect(units).toEqual(['d|2026-01-30', 'd|2026-01-31', 'm|2026-02', 'm|2026-03', 'd|2026-04-01', 'd|2026-04-02']);
  });

  it('steps blocks by their size and days one by one, for totals levels too', () => {
    const plan = readPlan('2026-05-02', '2026-05-29', false, true);
    for (const part of plan) {
      const units = unitsOf(part);
      expect(units[0]).toBe(part.from);
      expect(units[units.length - 1]).toBe(part.to);
    }
    const days = plan.flatMap((p) => unitsOf(p).map((u) => ({ level: p.level, u })));
    const covered = days.reduce(
      (n, { level }) => n + (level === 'td' ? 1 : level === 'tb4' ? 4 : level === 'tb16' ? 16 : 0),
      0,
    );
    expect(covered).toBe(28);
    expect(unitsOf({ level: 'd', from: '2026-12-30', to: '2027-01-02' })).toEqual([
      '2026-12-30',
      '2026-12-31',
      '2027-01-01',
      '2027-01-02',
    ]);
  });
});
