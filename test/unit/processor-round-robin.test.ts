import fc from 'fast-check';
import { Rotation } from '../../src/processor/agent-choice';
import type { AgentDoc } from '../../src/shared/mongo/documents';

// The round robin over batches: a batch's picks all carry one clock reading, and must rotate exactly
// as the same picks made one by one, each at its own instant. Agents of one profile (the same
// countries and the same shift) are then never more than one lead apart, whatever the batch sizes,
// the agents, the caps that cut a batch short and the shifts.
const PROFILES: Pick<AgentDoc, 'countries' | 'working_hours'>[] = [
  { countries: [], working_hours: null },
  { countries: ['DE'], working_hours: null },
  { countries: [], working_hours: { mon: ['09:00-17:00'] } },
  { countries: ['FR'], working_hours: { mon: ['12:00-20:00'] } },
];
const MONDAY = Date.parse('2026-11-23T00:00:00Z');

const agentsOf = (profiles: readonly number[]): AgentDoc[] =>
  profiles.map((p, i) => ({
    _id: `ag-${i}`,
    name: `agent ${i}`,
    active: true,
    languages: [],
    ...PROFILES[p]!,
    created_at: new Date(0),
    updated_at: new Date(0),
  }));

const scenario = fc.record({
  profiles: fc.array(fc.integer({ min: 0, max: PROFILES.length - 1 }), { minLength: 1, maxLength: 7 }),
  // Each batch at an hour of Monday (shifts start and end between them), its leads by country, and
  // how many of them a partner's cap lets through (the rest are rejected, never handed to an agent).
  batches: fc.array(
    fc.record({
      hour: fc.integer({ min: 0, max: 23 }),
      countries: fc.array(fc.constantFrom('DE', 'FR', 'US'), { minLength: 1, maxLength: 30 }),
      cap: fc.integer({ min: 0, max: 30 }),
    }),
    { minLength: 1, maxLength: 8 },
  ),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

// The agent each lead went to, batch by batch; `oneByOne` gives each lead of a batch its own instant.
function picks(s: Scenario, oneByOne: boolean): (string | null)[] {
  const rotation = new Rotation();
  rotation.setAgents(agentsOf(s.profiles));
  return s.batches.flatMap((b, n) => {
    const at = MONDAY + b.hour * 3_600_000 + n * 60_000; // later batches later, within the hour
    return b.countries
      .slice(0, b.cap)
      .map((country, i) => rotation.take({ country_code: country }, new Date(at + (oneByOne ? i : 0)))?._id ?? null);
  });
}

describe('round robin over batches', () => {
  it('picks within a batch as it picks one by one', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        expect(picks(s, false)).toEqual(picks(s, true));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps agents of one profile within one lead of each other', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const counts = new Map<string, number>();
        for (const id of picks(s, false)) if (id) counts.set(id, (counts.get(id) ?? 0) + 1);
        for (let p = 0; p < PROFILES.length; p++) {
          const alike = s.profiles.flatMap((q, i) => (q === p ? [counts.get(`ag-${i}`) ?? 0] : []));
          if (alike.length > 1) expect(Math.max(...alike) - Math.min(...alike)).toBeLessThanOrEqual(1);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('gives nine leads of one batch to three agents three each', () => {
    const rotation = new Rotation();
    rotation.setAgents(agentsOf([0, 0, 0]));
    const now = new Date(MONDAY);
    const got = Array.from({ length: 9 }, () => rotation.take({ country_code: 'DE' }, now)?._id);
    expect(got).toEqual(['ag-0', 'ag-1', 'ag-2', 'ag-0', 'ag-1', 'ag-2', 'ag-0', 'ag-1', 'ag-2']);
  });
});
