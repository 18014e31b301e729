import { DeliveryStore, newDeliveryDoc } from '../../src/dispatcher/delivery-store';
import { AuditLog } from '../../src/manager/audit-log';
import { DeliveryQueue } from '../../src/manager/delivery-queue';
import { LeadList } from '../../src/manager/lead-list';
import { findPage } from '../../src/manager/pagination';
import { PartnerService, type PartnerServiceDeps } from '../../src/manager/partner-service';
import { readReport } from '../../src/manager/reports/report-reader';
import { tallyWholeLead, type StoredLead } from '../../src/processor/reports/event-projection';
import { auditListEntries } from '../../src/shared/audit';
import { addCounts, isEmpty } from '../../src/shared/reports/cell-counts';
import { cellField, leadWriter, refusalWriter, targetsOf } from '../../src/shared/reports/cell-keys';
import { CellStore, cellsCollection, counterDoc, type Cells } from '../../src/shared/reports/cell-store';
import { connectMongo } from '../../src/shared/mongo/client';
import type { AuditDoc, DeliveryDoc, LeadDoc, StatusChange } from '../../src/shared/mongo/documents';
import type { LeadEvent } from '../../src/shared/schemas';
import { LeadFences } from '../../src/shared/store/lead-fences';
import { LeadStore } from '../../src/shared/store/leads';
import { ListIndex } from '../../src/shared/store/list-index';
import { loadConfig } from '../../src/shared/config';
import { timeContactReveals } from '../lib/contact-reveals';
import { logDirOf, type BenchContext, type ScenarioResult } from '../lib/context';
import { scenarioEnv, sleep } from '../lib/env';
import { CpuMeter } from '../lib/proc';
import { startRole, type RoleProcess } from '../lib/roles';
import { dropScenario } from '../lib/setup';
import { summarise, type Summary } from '../lib/stats';

// Every manager view at scale (issue 29): `--views N` leads (1,000,000 by default, 100,000 with
// --quick) stored through the real write paths (LeadStore, DeliveryStore, the audit log's list),
// each with two deliveries, over 30 days, 50 partners and 20 agents; then each view's first page
// and a page deep in it, read through the manager's own code, timed one request at a time; then
// the store's CPU while the all-in-one app runs idle on that data (nothing may scan in the background).
// The affiliate manager's views (scopedViews) read the same data through a partner scope.
const IDLE_S = 30;
const PARTNERS = 50;
const AGENTS = 20;
const DAYS = 30;
const CHUNK = 1000;
const COUNTRIES: [string, number][] = [['DE', 0.3], ['FR', 0.2], ['GB', 0.15], ['ES', 0.12], ['IT', 0.1], ['PL', 0.06], ['NL', 0.04], ['SE', 0.02], ['MT', 0.005], ['CY', 0.005]];
const SOURCES = ['search', 'social', 'display', 'email', 'native'];
// Where a stored lead stands (shares add up to 1).
const STATUSES: [string, number][] = [['assigned', 0.45], ['contacted', 0.3], ['new', 0.1], ['ftd', 0.08], ['rtd', 0.02], ['chargeback', 0.005], ['rejected', 0.045]];

const pick = <T>(table: [T, number][], x: number): T => {
  let acc = 0;
  for (const [v, share] of table) if ((acc += share) > x) return v;
  return table[table.length - 1]![0];
};
// Deterministic spread in [0, 1) of lead n for a purpose k.
const spread = (n: number, k: number): number => ((n * 2654435761 + k * 40503) % 1_000_003) / 1_000_003;
const partnerOf = (n: number) => `pa-${String(n % PARTNERS).padStart(16, '0')}`;
const agentOf = (n: number) => `ag-${String(n % AGENTS).padStart(16, '0')}`;

function leadOf(n: number, start: number, span: number): { lead: LeadDoc; events: LeadEvent[] } {
  const created = new Date(start + Math.floor((n / span) * DAYS * 86_400_000));
  const status = pick(STATUSES, spread(n, 1));
  const rejected = status === 'rejected';
  const partner = partnerOf(n);
  const id = `le-${n}`;
  const history: StatusChange[] = rejected
    ? [{ from: null, to: 'rejected', at: created, why: 'country_blocked:XX', source: 'intake', event: 'lead.rejected', is_depositor: false, reason: 'country_blocked:XX' }]
    : [{ from: null, to: 'new', at: created, why: 'accepted', source: 'intake', event: 'lead.accepted', is_depositor: false }];
  const depositor = ['ftd', 'rtd', 'chargeback'].includes(status);
  if (!rejected && status !== 'new') {
    const event = status === 'ftd' ? 'lead.ftd' : status === 'rtd' ? 'lead.rtd' : 'lead.status_changed';
    history.push({ from: 'new', to: status, at: new Date(created.getTime() + 600_000), why: 'bench', source: 'agent-action:bench', event, is_depositor: depositor });
  }
  const lead: LeadDoc = {
    _id: id, seq: n, partner_id: partner, external_id: `ext-${n}`, idempotency_key: `idem-${n}`, status, is_depositor: depositor, client_id: null,
    agent_id: rejected || status === 'new' ? null : agentOf(n), reason: rejected ? 'country_blocked:XX' : null, history,
    country_code: pick(COUNTRIES, spread(n, 2)), source: SOURCES[n % SOURCES.length], created_at: created, updated_at: history[history.length - 1]!.at,
  };
  const events: LeadEvent[] = history.map((h, i) => ({
    event_id: `${id}:${i}`, event: h.event!, lead_id: id, partner_id: partner, external_lead_id: lead.external_id, our_status: h.to,
    is_depositor: h.is_depositor, occurred_at: h.at.toISOString(),
  }));
  return { lead, events };
}

function deliveryOf(event: LeadEvent, n: number): DeliveryDoc {
  const x = spread(n, 3 + Number(event.event_id.endsWith(':1')));
  const at = new Date(event.occurred_at);
  const result = { httpStatus: x < 0.97 ? 200 : 503, error: null, responseBody: 'ok', durationMs: 40 };
  const decision = x < 0.97 ? { state: 'delivered' as const, attemptsMade: 1, attemptsLeft: 0 as const }
    : x < 0.99 ? { state: 'dead' as const, attemptsMade: 5, attemptsLeft: 0 as const }
      : { state: 'queued' as const, attemptsMade: 1, attemptsLeft: 4, nextAttemptAt: at.getTime() + 60_000, tier: 'retry1' as const };
  return newDeliveryDoc(event, 5, at, { at, result, decision });
}

// The report queries timed: [name, days, group_by].
const REPORTS: [string, number, string][] = [
  ['1 day by partner', 1, 'partner'], ['7 days by partner', 7, 'partner'], ['7 days by day', 7, 'day'],
  ['30 days by partner', 30, 'partner'], ['30 days by partner and country', 30, 'partner,country'],
];

// The report counter documents the live projector would hold for these leads: each lead counted
// whole (as the rebuild counts it) into the documents of its partner's day, blocks and month (cells and
// totals); each document
// carries the offsets of the writers that counted into it (the lead's lead-events partition, one of
// 6, at the lead's place in the stream, and the refusals partition of its partner).
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

interface View {
  name: string;
  run(i: number): Promise<{ items: unknown[] }>;
}

// An affiliate manager's views: SCOPED partners of the 50 (a different set each request), each list
// merging one range read per partner, each report reading the partners' documents by _id.
const SCOPED = 5;
const scopeOf = (i: number): ReadonlySet<string> => new Set(Array.from({ length: SCOPED }, (_, k) => partnerOf(i * SCOPED + k)));

function scopedViews(v: { queue: DeliveryQueue; leadList: LeadList; audit: AuditLog; cells: CellStore; partners: PartnerService; deep(i: number): string; to: Date }): View[] {
  const name = (what: string) => `affiliate manager (${SCOPED} partners): ${what}`;
  const report = (days: number, groupBy: string) => async (i: number) => {
    const from = new Date(v.to.getTime() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
    return { items: (await readReport(v.cells, { from, to: v.to.toISOString().slice(0, 10), group_by: groupBy }, v.to, scopeOf(i))).rows };
  };
  return [
    { name: name('leads'), run: (i) => v.leadList.page({}, { limit: 20 }, scopeOf(i)) },
    { name: name('leads, deep page'), run: (i) => v.leadList.page({}, { limit: 20, cursor: v.deep(i) }, scopeOf(i)) },
    { name: name('leads, status=ftd'), run: (i) => v.leadList.page({ status: 'ftd' }, { limit: 20 }, scopeOf(i)) },
    { name: name('leads, one of them'), run: (i) => v.leadList.page({ affiliate_id: partnerOf(i * SCOPED) }, { limit: 20 }, scopeOf(i)) },
    { name: name('deliveries'), run: (i) => v.queue.page({}, { limit: 20 }, scopeOf(i)) },
    { name: name('deliveries, state=dead'), run: (i) => v.queue.page({ state: 'dead' }, { limit: 20 }, scopeOf(i)) },
    { name: name('deliveries, state=delivered, deep page'), run: (i) => v.queue.page({ state: 'delivered' }, { limit: 20, cursor: v.deep(i) }, scopeOf(i)) },
    { name: name('audit log'), run: (i) => v.audit.list({}, { limit: 20 }, scopeOf(i)) },
    { name: name('report, 30 days by partner'), run: report(30, 'partner') },
    { name: name('report, 30 days by partner and country'), run: report(30, 'partner,country') },
    { name: name('report, 30 days by day'), run: report(30, 'day') },
    { name: name('partners'), run: (i) => v.partners.list({ limit: 20, offset: 0 }, scopeOf(i)) },
  ];
}

export async function managerViewsScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const { opts } = ctx;
  const { env } = scenarioEnv('managerviews', opts.logLevel);
  const stored = opts.viewDocs;
  const requests = opts.quick ? 40 : 100;
  const mongo = await connectMongo(loadConfig({ ...env, ROLE: 'processor' }));
  const c = mongo.collections;
  const data: Record<string, unknown> = { leads: stored, requestsPerView: requests };
  const start = Date.UTC(2026, 9, 1);
  try {
    const t0 = Date.now();
    const leads = new LeadStore(c.leads, { fences: new LeadFences(mongo.db), list: new ListIndex(c.leadList), isTerminal: () => false });
    const deliveries = new DeliveryStore(c.deliveries, new ListIndex(c.deliveryList));
    const cells = new Map<string, Seeded>();
    for (let from = 1; from <= stored; from += CHUNK) {
      const made = Array.from({ length: Math.min(CHUNK, stored - from + 1) }, (_, j) => leadOf(from + j, start, stored));
      for (const m of made) tallyInto(cells, m.lead);
      await leads.insertNew(made.map((m) => m.lead));
      await deliveries.insertNew(made.flatMap((m, j) => m.events.map((e) => deliveryOf(e, from + j))));
      if ((from - 1) % 100_000 === 0) ctx.log(`manager-views: ${from - 1} leads stored (${Math.round((Date.now() - t0) / 1000)} s)`);
    }
    const audits = Math.max(1000, Math.floor(stored / 10));
    const list = new ListIndex(c.auditList);
    for (let from = 0; from < audits; from += CHUNK) {
      const docs: AuditDoc[] = Array.from({ length: Math.min(CHUNK, audits - from) }, (_, j) => ({
        _id: `au-${String(from + j).padStart(16, '0')}`, at: new Date(start + (from + j) * 60_000), actor: 'token:bench',
        action: ['partner.update', 'delivery.retry', 'agent.update'][(from + j) % 3]!, partner_id: partnerOf(from + j), target: null, details: {},
      }));
      await list.put(docs.flatMap(auditListEntries));
      await c.audit.insertMany(docs);
    }
    await c.partners.insertMany(Array.from({ length: PARTNERS }, (_, i) => ({
      _id: partnerOf(i), name: `Partner ${i}`, api_key_hash: `h${i}`, hmac_secret_enc: '', callback_secret_enc: '', callback_url: null, disabled: false,
      created_at: new Date(start + i * 1000), updated_at: new Date(start), key_rotated_at: null,
    })));
    const cellStore = new CellStore(cellsCollection(mongo.db));
    const cellDocs = [...cells].map(([id, doc]) => counterDoc(id, doc.cells, {}, doc.o));
    for (let i = 0; i < cellDocs.length; i += 500) await cellsCollection(mongo.db).insertMany(cellDocs.slice(i, i + 500));
    data.reportDocuments = cellDocs.length;
    data.seedS = Math.round((Date.now() - t0) / 1000);
    ctx.log(`manager-views: ${stored} leads, ${stored * 2} deliveries, ${audits} audit entries, ${cellDocs.length} report documents stored in ${data.seedS} s`);

    const queue = new DeliveryQueue(c.deliveries, c.deliveryList);
    const leadList = new LeadList(c.leads, c.leadList);
    const day = (i: number) => new Date(start + (i % DAYS) * 86_400_000);
    // A cursor into the middle of a view (day 15 of 30): the page a manager reaches after paging a while.
    const deep = (i: number) => `${new Date(day(15).getTime() + i * 60_000).toISOString()}|z`;
    const views: View[] = [
      { name: 'deliveries, no filter', run: () => queue.page({}, { limit: 20 }) },
      { name: 'deliveries, state=dead', run: () => queue.page({ state: 'dead' }, { limit: 20 }) },
      { name: 'deliveries, state=delivered, deep page', run: (i) => queue.page({ state: 'delivered' }, { limit: 20, cursor: deep(i) }) },
      { name: 'deliveries, state=dead, partner', run: (i) => queue.page({ state: 'dead', affiliate_id: partnerOf(i) }, { limit: 20 }) },
      { name: 'deliveries, partner, event=lead.status_changed', run: (i) => queue.page({ affiliate_id: partnerOf(i), event: 'lead.status_changed' }, { limit: 20 }) },
      { name: 'deliveries, state=queued, a day', run: (i) => queue.page({ state: 'queued', from: day(i).toISOString(), to: day(i + 1).toISOString() }, { limit: 20 }) },
      { name: "an agent's leads", run: (i) => leadList.agentPage(agentOf(i), { limit: 20 }) },
      { name: 'leads, no filter', run: () => leadList.page({}, { limit: 20 }) },
      { name: 'leads, no filter, deep page', run: (i) => leadList.page({}, { limit: 20, cursor: deep(i) }) },
      { name: 'leads, partner', run: (i) => leadList.page({ affiliate_id: partnerOf(i) }, { limit: 20 }) },
      { name: 'leads, status=ftd', run: () => leadList.page({ status: 'ftd' }, { limit: 20 }) },
      { name: 'leads, partner, depositors, a day', run: (i) => leadList.page({ affiliate_id: partnerOf(i), is_depositor: true, from: day(i).toISOString(), to: day(i + 1).toISOString() }, { limit: 20 }) },
      { name: 'leads, country=MT (0.5%, checked per entry)', run: () => leadList.page({ country_code: 'MT' }, { limit: 20 }) },
      { name: 'leads, partner, source', run: (i) => leadList.page({ affiliate_id: partnerOf(i), source: SOURCES[i % SOURCES.length] }, { limit: 20 }) },
      ...REPORTS.map(([name, days, groupBy]): View => ({
        name: `report, ${name}`,
        run: async (i) => {
          const to = new Date(start + (DAYS - 1 - (i % 3)) * 86_400_000);
          const report = await readReport(cellStore, { from: new Date(to.getTime() - (days - 1) * 86_400_000).toISOString().slice(0, 10), to: to.toISOString().slice(0, 10), group_by: groupBy }, to);
          return { items: report.rows };
        },
      })),
      { name: 'audit log, partner', run: (i) => new AuditLog(c).list({ affiliate_id: partnerOf(i) }, { limit: 20 }) },
      { name: 'audit log, action', run: () => new AuditLog(c).list({ action: 'delivery.retry' }, { limit: 20 }) },
      { name: 'partners (offset)', run: (i) => findPage(c.partners, {}, { limit: 20, offset: i % 2 === 0 ? 0 : 20 }, (d) => d) },
      ...scopedViews({ queue, leadList, audit: new AuditLog(c), cells: cellStore, partners: new PartnerService({ partners: c.partners } as PartnerServiceDeps), deep, to: new Date(start + (DAYS - 1) * 86_400_000) }),
      {
        name: 'replay start: first delivery of a day',
        run: async (i) => {
          for await (const d of deliveries.inRange({ partnerId: partnerOf(i), from: day(i), to: day(i + 1), events: [] }, null)) return { items: [d] };
          return { items: [] };
        },
      },
    ];
    const rows: (string | number)[][] = [];
    const results: Record<string, Summary & { items: number }> = {};
    for (const view of views) {
      const ms: number[] = [];
      let items = 0;
      for (let i = 0; i < requests; i++) {
        const t = performance.now();
        const page = await view.run(i);
        ms.push(performance.now() - t);
        items += page.items.length;
      }
      const s = summarise(ms);
      results[view.name] = { ...s, items: Math.round(items / requests) };
      rows.push([view.name, s.n, Math.round(items / requests), s.p50, s.p99, s.max].map((v) => (typeof v === 'number' ? Math.round(v * 10) / 10 : v)));
      ctx.log(`manager-views: ${view.name}: p50 ${s.p50.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms`);
    }
    data.views = results;
    const reveal = await timeContactReveals(ctx, env, mongo, { stored, leadAt: (n) => leadOf(n, start, stored).lead, requests: opts.quick ? 300 : 1000 });
    data.contactReveal = reveal;
    rows.push(['contact reveal: GET /api/leads/{id}/contact on the ingress, a CRM for the lead\'s agent (target p99 < 50 ms)', reveal.n, 1, reveal.p50, reveal.p99, reveal.max]);
    const idle = await idleStoreCpu(ctx, env);
    data.idle = idle;
    rows.push([`store CPU, app idle ${IDLE_S} s (% of a core)`, 1, '', idle.perProcess['mongo-wire'] ?? '', '', '']);
    return {
      name: 'manager-views', title: 'Manager views over a million leads', data, notes: [],
      tables: [{
        title: `First pages of 20 with ${stored.toLocaleString('en')} leads and ${(stored * 2).toLocaleString('en')} deliveries stored (target: p99 < 200 ms)`,
        columns: ['view', 'requests', 'rows a page', 'p50 ms', 'p99 ms', 'max ms'],
        rows,
        note: 'read through the manager\'s own code (src/manager), one request at a time, on MONGO_URL; the last row is the store\'s CPU while `main.js all` idles',
      }],
    };
  } finally {
    await mongo.client.close();
    await dropScenario(env);
  }
}

// The all-in-one app started on the stored data, left alone: its periodic work must not read the
// big collections, so the store stays near idle.
async function idleStoreCpu(ctx: BenchContext, env: Record<string, string>) {
  let app: RoleProcess | null = null;
  try {
    app = await startRole('all', env, { logDir: logDirOf(ctx, 'manager-views'), nodeOptions: ctx.opts.nodeOptions });
    await sleep(10_000); // start-up reads done
    const meter = new CpuMeter(() => [{ name: 'app', pid: app!.pid }, ...ctx.services()]);
    meter.start();
    await sleep(IDLE_S * 1000);
    const cpu = meter.stop();
    ctx.log(`manager-views: idle for ${IDLE_S} s: store ${cpu.perProcess['mongo-wire'] ?? '?'}% of a core, app ${cpu.perProcess.app ?? '?'}%`);
    return cpu;
  } finally {
    await app?.stop();
  }
}
