import { DeliveryStore, newDeliveryDoc } from '../../src/dispatcher/delivery-store';
import { newDataKey } from '../../src/shared/crypto/data-key';
import type { PiiCipher } from '../../src/shared/crypto/pii-cipher';
import { tallyWholeLead, type StoredLead } from '../../src/processor/reports/event-projection';
import { auditListEntries } from '../../src/shared/audit';
import type { Mongo } from '../../src/shared/mongo/client';
import type { AuditDoc, DeliveryDoc, LeadDoc, LeadKeyDoc, StatusChange } from '../../src/shared/mongo/documents';
import { addCounts, isEmpty } from '../../src/shared/reports/cell-counts';
import { cellField, leadWriter, refusalWriter, targetsOf } from '../../src/shared/reports/cell-keys';
import { cellsCollection, counterDoc, type Cells } from '../../src/shared/reports/cell-store';
import type { LeadEvent } from '../../src/shared/schemas';
import { IntakeKeyStore } from '../../src/shared/store/intake-keys';
import { LeadKeyStore } from '../../src/shared/store/lead-keys';
import { leadRefId, LeadRefStore } from '../../src/shared/store/lead-refs';
import { LeadStore } from '../../src/shared/store/leads';
import { ListIndex } from '../../src/shared/store/list-index';

// A store of `stored` leads over 30 days, seeded through the real write paths (LeadStore with its
// list entries, DeliveryStore with two deliveries a lead, the audit log's list) with the report
// counter documents the live projector would hold for them. Used by the `manager-views` and
// `portal` scenarios; a layout says how leads fall on partners and agents and from when.
export const DAYS = 30;
const CHUNK = 1000;
export const COUNTRIES: [string, number][] = [
  ['DE', 0.3],
  ['FR', 0.2],
  ['GB', 0.15],
  ['ES', 0.12],
  ['IT', 0.1],
  ['PL', 0.06],
  ['NL', 0.04],
  ['SE', 0.02],
  ['MT', 0.005],
  ['CY', 0.005],
];
export const SOURCES = ['search', 'social', 'display', 'email', 'native'];
// Where a stored lead stands (shares add up to 1).
const STATUSES: [string, number][] = [
  ['assigned', 0.45],
  ['contacted', 0.3],
  ['new', 0.1],
  ['ftd', 0.08],
  ['rtd', 0.02],
  ['chargeback', 0.005],
  ['rejected', 0.045],
];

const pick = <T>(table: [T, number][], x: number): T => {
  let acc = 0;
  for (const [v, share] of table) if ((acc += share) > x) return v;
  return table[table.length - 1]![0];
};
// Deterministic spread in [0, 1) of lead n for a purpose k.
export const spread = (n: number, k: number): number => ((n * 2654435761 + k * 40503) % 1_000_003) / 1_000_003;
export const partnerId = (i: number): string => `pa-${String(i).padStart(16, '0')}`;

export interface SeedLayout {
  stored: number; // leads 1..stored
  start: number; // ms: lead 1's creation; the last is created 30 days later
  partners: number;
  partnerOf(n: number): string;
  agentOf(n: number): string;
  // For the partner's own views: each lead's lead_refs entry (its external id), and its phone sealed
  // with a data key stored where the processor keeps it (one key per chunk of leads).
  partnerFacing?: { keyring: PiiCipher };
}

export function leadOf(n: number, o: SeedLayout): { lead: LeadDoc; events: LeadEvent[] } {
  const created = new Date(o.start + Math.floor((n / o.stored) * DAYS * 86_400_000));
  const status = pick(STATUSES, spread(n, 1));
  const rejected = status === 'rejected';
  const partner = o.partnerOf(n);
  const id = `le-${n}`;
  const history: StatusChange[] = rejected
    ? [
        {
          from: null,
          to: 'rejected',
          at: created,
          why: 'country_blocked:XX',
          source: 'intake',
          event: 'lead.rejected',
          is_depositor: false,
          reason: 'country_blocked:XX',
        },
      ]
    : [
        {
          from: null,
          to: 'new',
          at: created,
          why: 'accepted',
          source: 'intake',
          event: 'lead.accepted',
          is_depositor: false,
        },
      ];
  const depositor = ['ftd', 'rtd', 'chargeback'].includes(status);
  if (!rejected && status !== 'new') {
    const event = status === 'ftd' ? 'lead.ftd' : status === 'rtd' ? 'lead.rtd' : 'lead.status_changed';
    history.push({
      from: 'new',
      to: status,
      at: new Date(created.getTime() + 600_000),
      why: 'bench',
      source: 'agent-action:bench',
      event,
      is_depositor: depositor,
    });
  }
  const lead: LeadDoc = {
    _id: id,
    seq: n,
    partner_id: partner,
    external_id: `ext-${n}`,
    idempotency_key: `idem-${n}`,
    status,
    is_depositor: depositor,
    client_id: null,
    agent_id: rejected || status === 'new' ? null : o.agentOf(n),
    reason: rejected ? 'country_blocked:XX' : null,
    history,
    country_code: pick(COUNTRIES, spread(n, 2)),
    source: SOURCES[n % SOURCES.length],
    created_at: created,
    updated_at: history[history.length - 1]!.at,
  };
  const events: LeadEvent[] = history.map((h, i) => ({
    event_id: `${id}:${i}`,
    event: h.event!,
    lead_id: id,
    partner_id: partner,
    external_lead_id: lead.external_id,
    our_status: h.to,
    is_depositor: h.is_depositor,
    occurred_at: h.at.toISOString(),
  }));
  return { lead, events };
}

function deliveryOf(event: LeadEvent, n: number): DeliveryDoc {
  const x = spread(n, 3 + Number(event.event_id.endsWith(':1')));
  const at = new Date(event.occurred_at);
  const result = { httpStatus: x < 0.97 ? 200 : 503, error: null, responseBody: 'ok', durationMs: 40 };
  const decision =
    x < 0.97
      ? { state: 'delivered' as const, attemptsMade: 1, attemptsLeft: 0 as const }
      : x < 0.99
        ? { state: 'dead' as const, attemptsMade: 5, attemptsLeft: 0 as const }
        : {
            state: 'queued' as const,
            attemptsMade: 1,
            attemptsLeft: 4,
            nextAttemptAt: at.getTime() + 60_000,
            tier: 'retry1' as const,
          };
  return newDeliveryDoc(event, 5, at, { at, result, decision });
}

// The report counter documents the live projector would hold for these leads: each lead counted
// whole (as the rebuild counts it) into the documents of its partner's day, blocks and month (cells and
// totals); each document carries the offsets of the writers that counted into it (the lead's
// lead-events partition, one of 6, at the lead's place in the stream, and the refusals partition of its partner).
interface Seeded {
  cells: Cells;
  o: Record<string, number>;
}

function tallyInto(docs: Map<string, Seeded>, lead: LeadDoc): void {
  const day = lead.created_at.toISOString().slice(0, 10);
  const { state, delta } = tallyWholeLead(lead as unknown as StoredLead, day);
  if (isEmpty(delta)) return;
  for (const [id, field] of targetsOf(day, lead.partner_id, cellField(state.country_code, state.source))) {
    let doc = docs.get(id);
    if (!doc) docs.set(id, (doc = { cells: {}, o: { [refusalWriter(lead.seq % 3)]: Math.floor(lead.seq / 50) } }));
    doc.o[leadWriter(lead.seq % 6)] = lead.seq * 4;
    addCounts((doc.cells[field] ??= {}), delta);
  }
}

// A partner-facing lead: its phone sealed with the chunk's data key, the key stored by lead, its ref.
async function sealChunk(mongo: Mongo, keyring: PiiCipher, leads: LeadDoc[]): Promise<void> {
  const key = newDataKey(keyring);
  const keys: LeadKeyDoc[] = [];
  for (const lead of leads) {
    lead.phone_enc = key.cipher.encrypt(`+4479${String(lead.seq).padStart(8, '0')}`);
    keys.push({ _id: lead._id, dek_enc: key.wrapped, created_at: lead.created_at });
  }
  await new LeadKeyStore(mongo.db, new IntakeKeyStore(mongo.db)).insertNew(keys);
  await new LeadRefStore(mongo.collections.leadRefs).insertNew(
    leads.map((l) => ({
      _id: leadRefId(l.partner_id, l.external_id),
      lead_id: l._id,
      owner: `${l.partner_id}:${l.idempotency_key}`,
      created_at: l.created_at,
    })),
  );
}

export interface SeedResult {
  audits: number;
  reportDocuments: number;
  seedS: number;
}

export async function seedLeads(mongo: Mongo, o: SeedLayout, log: (msg: string) => void): Promise<SeedResult> {
  const c = mongo.collections;
  const t0 = Date.now();
  const leads = new LeadStore(c.leads, {
    list: new ListIndex(c.leadList),
    isTerminal: () => false,
  });
  const deliveries = new DeliveryStore(c.deliveries, new ListIndex(c.deliveryList));
  const cells = new Map<string, Seeded>();
  for (let from = 1; from <= o.stored; from += CHUNK) {
    const made = Array.from({ length: Math.min(CHUNK, o.stored - from + 1) }, (_, j) => leadOf(from + j, o));
    for (const m of made) tallyInto(cells, m.lead);
    if (o.partnerFacing)
      await sealChunk(
        mongo,
        o.partnerFacing.keyring,
        made.map((m) => m.lead),
      );
    await leads.insertNew(made.map((m) => m.lead));
    await deliveries.insertNew(made.flatMap((m, j) => m.events.map((e) => deliveryOf(e, from + j))));
    if ((from - 1) % 100_000 === 0) log(`${from - 1} leads stored (${Math.round((Date.now() - t0) / 1000)} s)`);
  }
  const audits = Math.max(1000, Math.floor(o.stored / 10));
  const list = new ListIndex(c.auditList);
  for (let from = 0; from < audits; from += CHUNK) {
    const docs: AuditDoc[] = Array.from({ length: Math.min(CHUNK, audits - from) }, (_, j) => ({
      _id: `au-${String(from + j).padStart(16, '0')}`,
      at: new Date(o.start + (from + j) * 60_000),
      actor: 'token:bench',
      action: ['partner.update', 'delivery.retry', 'agent.update'][(from + j) % 3]!,
      partner_id: partnerId((from + j) % o.partners),
      target: null,
      details: {},
    }));
    await list.put(docs.flatMap(auditListEntries));
    await c.audit.insertMany(docs);
  }
  await c.partners.insertMany(
    Array.from({ length: o.partners }, (_, i) => ({
      _id: partnerId(i),
      name: `Partner ${i}`,
      api_key_hash: `h${i}`,
      hmac_secret_enc: '',
      callback_secret_enc: '',
      callback_url: null,
      disabled: false,
      created_at: new Date(o.start + i * 1000),
      updated_at: new Date(o.start),
      key_rotated_at: null,
    })),
  );
  const cellDocs = [...cells].map(([id, doc]) => counterDoc(id, doc.cells, {}, doc.o));
  for (let i = 0; i < cellDocs.length; i += 500) await cellsCollection(mongo.db).insertMany(cellDocs.slice(i, i + 500));
  const seedS = Math.round((Date.now() - t0) / 1000);
  log(
    `${o.stored} leads, ${o.stored * 2} deliveries, ${audits} audit entries, ${cellDocs.length} report documents stored in ${seedS} s`,
  );
  return { audits, reportDocuments: cellDocs.length, seedS };
}
