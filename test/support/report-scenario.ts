import { eventsOf } from '../../src/processor/lead-events';
import type { LeadDoc, StatusChange } from '../../src/shared/mongo/documents';
import type { Runtime } from '../../src/shared/runtime';
import type { IntakeRefusal } from '../../src/shared/schemas';
import { produce } from './intake-commands';
import { publishLeadEvents } from './lead-events';

// A hand-counted reports scenario: two partners in different time zones (Tokyo +09:00, New York
// -05:00), two days each, with times chosen so the partner's day differs from the UTC day where it
// matters. Leads are stored as the processor stores them and their events published as it
// publishes them; refusals are published as the ingress publishes them.
export const ZONES = { a: 'Asia/Tokyo', b: 'America/New_York' } as const;
export const DAYS = { first: '2026-11-10', second: '2026-11-11' } as const;

const base = {
  a1: Date.parse('2026-11-10T01:00:00Z'), // 10:00 on the 10th in Tokyo
  a2: Date.parse('2026-11-10T20:00:00Z'), // 05:00 on the 11th in Tokyo (UTC still the 10th)
  b1: Date.parse('2026-11-11T03:00:00Z'), // 22:00 on the 10th in New York (UTC already the 11th)
  b2: Date.parse('2026-11-11T15:00:00Z'), // 10:00 on the 11th in New York
};
const MIN = 60_000;

type Step = [event: StatusChange['event'], to: string, minutes: number, reason?: string];
const accepted: Step = ['lead.accepted', 'new', 0];
const assigned: Step = ['lead.status_changed', 'assigned', 0];
const rejected = (reason: string): Step => ['lead.rejected', 'rejected', 0, reason];

interface ScenarioLead {
  id: string;
  partner: 'a' | 'b';
  at: number;
  country?: string;
  source?: string;
  steps: Step[];
  test?: true;
}

export const SCENARIO_LEADS: ScenarioLead[] = [
  {
    id: 'le-101',
    partner: 'a',
    at: base.a1,
    country: 'DE',
    source: 'google',
    steps: [
      accepted,
      assigned,
      ['lead.status_changed', 'contacted', 5],
      ['lead.ftd', 'ftd', 120],
      ['lead.rtd', 'rtd', 180],
      ['lead.rtd', 'rtd', 240],
      ['lead.status_changed', 'chargeback', 300],
    ],
  },
  {
    id: 'le-102',
    partner: 'a',
    at: base.a1,
    country: 'DE',
    source: 'google',
    steps: [accepted, assigned, ['lead.status_changed', 'no_answer', 30]],
  },
  { id: 'le-103', partner: 'a', at: base.a1, country: 'DE', source: 'google', steps: [rejected('country_blocked:DE')] },
  { id: 'le-104', partner: 'a', at: base.a1, country: 'FR', steps: [accepted, assigned] },
  { id: 'le-105', partner: 'a', at: base.a1, country: 'FR', steps: [rejected('cap_reached:daily')] },
  {
    id: 'le-106',
    partner: 'a',
    at: base.a2,
    country: 'DE',
    source: 'google',
    steps: [accepted, ['lead.status_changed', 'contacted', 10], ['lead.ftd', 'ftd', 60]],
  },
  { id: 'le-107', partner: 'a', at: base.a2, country: 'DE', source: 'fb', steps: [rejected('ip_blocked')] },
  // Reassigned when idle (no event), then contacted: a gap in its event indexes.
  {
    id: 'le-108',
    partner: 'a',
    at: base.a2,
    country: 'DE',
    source: 'fb',
    steps: [accepted, assigned, [null, 'assigned', 20], ['lead.status_changed', 'contacted', 45]],
  },
  {
    id: 'le-201',
    partner: 'b',
    at: base.b1,
    country: 'US',
    source: '=cmd',
    steps: [accepted, assigned, ['lead.status_changed', 'contacted', 3], ['lead.ftd', 'ftd', 20]],
  },
  { id: 'le-202', partner: 'b', at: base.b1, country: 'US', source: '=cmd', steps: [rejected('risk_rejected')] },
  { id: 'le-203', partner: 'b', at: base.b1, country: 'US', source: '=cmd', steps: [rejected('source_blocked')] },
  {
    id: 'le-204',
    partner: 'b',
    at: base.b2,
    country: 'CA',
    source: 'organic',
    steps: [accepted, assigned, ['lead.status_changed', 'interested', 15]],
  },
  { id: 'le-205', partner: 'b', at: base.b2, country: 'CA', source: 'organic', steps: [accepted] },
  {
    id: 'le-206',
    partner: 'b',
    at: base.b2,
    country: 'CA',
    source: 'organic',
    steps: [accepted, assigned],
    test: true,
  }, // sandbox: never counted
];

type ScenarioRefusal = Pick<IntakeRefusal, 'status' | 'country_code' | 'source'> & { partner: 'a' | 'b'; at: number };
export const SCENARIO_REFUSALS: ScenarioRefusal[] = [
  { partner: 'a', status: 'duplicate', country_code: 'DE', source: 'google', at: base.a1 + 60 * MIN },
  { partner: 'a', status: 'validation_error', at: base.a1 + 120 * MIN },
  { partner: 'a', status: 'duplicate', country_code: 'DE', source: 'google', at: base.a2 + 60 * MIN },
  { partner: 'b', status: 'validation_error', country_code: 'US', source: '=cmd', at: base.b1 + 60 * MIN },
  { partner: 'b', status: 'duplicate', country_code: 'CA', source: 'organic', at: base.b2 + 60 * MIN },
  { partner: 'b', status: 'duplicate', country_code: 'CA', source: 'organic', at: base.b2 + 120 * MIN },
];

// The hand count, per partner and partner's day.
export const EXPECTED = {
  a: {
    [DAYS.first]: {
      received: 7,
      accepted: 3,
      duplicates: 1,
      validation_errors: 1,
      rejected: 2,
      rejected_by_reason: { country: 1, source: 0, ip: 0, risk: 0, cap: 1, other: 0 },
      contacted: 2,
      ftd: 1,
      rtd: 2,
      chargebacks: 1,
      median_seconds_to_contact: 300,
      median_seconds_to_ftd: 7200,
    },
    [DAYS.second]: {
      received: 4,
      accepted: 2,
      duplicates: 1,
      validation_errors: 0,
      rejected: 1,
      rejected_by_reason: { country: 0, source: 0, ip: 1, risk: 0, cap: 0, other: 0 },
      contacted: 2,
      ftd: 1,
      rtd: 0,
      chargebacks: 0,
      median_seconds_to_contact: 600,
      median_seconds_to_ftd: 3600,
    },
  },
  b: {
    [DAYS.first]: {
      received: 4,
      accepted: 1,
      duplicates: 0,
      validation_errors: 1,
      rejected: 2,
      rejected_by_reason: { country: 0, source: 1, ip: 0, risk: 1, cap: 0, other: 0 },
      contacted: 1,
      ftd: 1,
      rtd: 0,
      chargebacks: 0,
      median_seconds_to_contact: 180,
      median_seconds_to_ftd: 1200,
    },
    [DAYS.second]: {
      received: 4,
      accepted: 2,
      duplicates: 2,
      validation_errors: 0,
      rejected: 0,
      rejected_by_reason: { country: 0, source: 0, ip: 0, risk: 0, cap: 0, other: 0 },
      contacted: 1,
      ftd: 0,
      rtd: 0,
      chargebacks: 0,
      median_seconds_to_contact: 900,
      median_seconds_to_ftd: null,
    },
  },
} as const;

export const EXPECTED_TOTALS = {
  received: 19,
  accepted: 8,
  duplicates: 4,
  validation_errors: 2,
  rejected: 5,
  rejected_by_reason: { country: 1, source: 1, ip: 1, risk: 1, cap: 1, other: 0 },
  contacted: 6,
  ftd: 3,
  rtd: 2,
  chargebacks: 1,
  accepted_share: 0.4211,
  contact_rate: 0.75,
  ftd_conversion: 0.375,
  chargeback_rate: 0.3333,
  median_seconds_to_contact: 600,
  median_seconds_to_ftd: 3600,
};

export function scenarioLeadDoc(lead: ScenarioLead, partnerId: string): LeadDoc {
  let status: string | null = null;
  const history: StatusChange[] = lead.steps.map(([event, to, minutes, reason]) => {
    const entry: StatusChange = {
      from: status,
      to,
      at: new Date(lead.at + minutes * MIN),
      why: 'scenario',
      source: 'scenario',
      event,
      is_depositor: ['ftd', 'rtd', 'chargeback'].includes(to),
    };
    if (reason) entry.reason = reason;
    status = to;
    return entry;
  });
  const created = new Date(lead.at);
  return {
    _id: lead.id,
    seq: Number(lead.id.slice(3)),
    partner_id: partnerId,
    external_id: `ext-${lead.id}`,
    idempotency_key: `idem-${lead.id}`,
    status: status ?? 'new',
    is_depositor: history.some((h) => h.is_depositor),
    client_id: null,
    agent_id: null,
    reason: history[0]?.reason ?? null,
    history,
    ...(lead.country ? { country_code: lead.country } : {}),
    ...(lead.source ? { source: lead.source } : {}),
    ...(lead.test ? { test: true as const } : {}),
    created_at: created,
    updated_at: created,
  };
}

// Stores the scenario's leads and publishes every event they made and every refusal.
export async function playScenario(rt: Runtime, partners: { a: string; b: string }): Promise<LeadDoc[]> {
  const docs = SCENARIO_LEADS.map((l) => scenarioLeadDoc(l, partners[l.partner]));
  await rt.mongo.collections.leads.insertMany(docs);
  await publishLeadEvents(
    rt,
    docs.flatMap((d) => eventsOf(d)),
  );
  await publishRefusals(rt, partners);
  return docs;
}

export async function publishRefusals(rt: Runtime, partners: { a: string; b: string }): Promise<void> {
  const refusals: IntakeRefusal[] = SCENARIO_REFUSALS.map(({ partner, at, ...r }, i) => ({
    refusal_id: `scenario-${i}`,
    partner_id: partners[partner],
    reason: r.status === 'duplicate' ? 'duplicate_phone' : 'missing_required:phone',
    at: new Date(at).toISOString(),
    status: r.status,
    ...(r.country_code ? { country_code: r.country_code } : {}),
    ...(r.source ? { source: r.source } : {}),
  }));
  await produce(rt, 'intakeRefusals', refusals, (v) => (v as IntakeRefusal).partner_id);
}
