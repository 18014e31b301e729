import { AuditLog } from '../../src/manager/audit-log';
import { DeliveryQueue } from '../../src/manager/delivery-queue';
import { LeadList } from '../../src/manager/lead-list';
import { findPage } from '../../src/manager/pagination';
import { PartnerService, type PartnerServiceDeps } from '../../src/manager/partner-service';
import { readReport } from '../../src/manager/reports/report-reader';
import { CellStore, cellsCollection } from '../../src/shared/reports/cell-store';
import { connectMongo } from '../../src/shared/mongo/client';
import { DeliveryStore } from '../../src/dispatcher/delivery-store';
import { ListIndex } from '../../src/shared/store/list-index';
import { loadConfig } from '../../src/shared/config';
import { DAYS, leadOf, partnerId, seedLeads, SOURCES, type SeedLayout } from '../lib/lead-seed';
import { timeContactReveals } from '../lib/contact-reveals';
import { logDirOf, type BenchContext, type ScenarioResult } from '../lib/context';
import { scenarioEnv, sleep } from '../lib/env';
import { CpuMeter } from '../lib/proc';
import { startRole, type RoleProcess } from '../lib/roles';
import { dropScenario } from '../lib/setup';
import { summarise, type Summary } from '../lib/stats';

// Every manager view at scale: `--views N` leads (1,000,000 by default, 100,000 with
// --quick) stored through the real write paths (LeadStore, DeliveryStore, the audit log's list),
// each with two deliveries, over 30 days, 50 partners and 20 agents; then each view's first page
// and a page deep in it, read through the manager's own code, timed one request at a time; then
// the store's CPU while the all-in-one app runs idle on that data (nothing may scan in the background).
// The affiliate manager's views (scopedViews) read the same data through a partner scope.
const IDLE_S = 30;
const PARTNERS = 50;
const AGENTS = 20;
const partnerOf = (n: number) => partnerId(n % PARTNERS);
const agentOf = (n: number) => `ag-${String(n % AGENTS).padStart(16, '0')}`;

// The report queries timed: [name, days, group_by].
const REPORTS: [string, number, string][] = [
  ['1 day by partner', 1, 'partner'],
  ['7 days by partner', 7, 'partner'],
  ['7 days by day', 7, 'day'],
  ['30 days by partner', 30, 'partner'],
  ['30 days by partner and country', 30, 'partner,country'],
];

interface View {
  name: string;
  run(i: number): Promise<{ items: unknown[] }>;
}

// An affiliate manager's views: SCOPED partners of the 50 (a different set each request), each list
// merging one range read per partner, each report reading the partners' documents by _id.
const SCOPED = 5;
const scopeOf = (i: number): ReadonlySet<string> =>
  new Set(Array.from({ length: SCOPED }, (_, k) => partnerOf(i * SCOPED + k)));

function scopedViews(v: {
  queue: DeliveryQueue;
  leadList: LeadList;
  audit: AuditLog;
  cells: CellStore;
  partners: PartnerService;
  deep(i: number): string;
  to: Date;
}): View[] {
  const name = (what: string) => `affiliate manager (${SCOPED} partners): ${what}`;
  const report = (days: number, groupBy: string) => async (i: number) => {
    const from = new Date(v.to.getTime() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
    return {
      items: (
        await readReport(v.cells, { from, to: v.to.toISOString().slice(0, 10), group_by: groupBy }, v.to, scopeOf(i))
      ).rows,
    };
  };
  return [
    { name: name('leads'), run: (i) => v.leadList.page({}, { limit: 20 }, scopeOf(i)) },
    { name: name('leads, deep page'), run: (i) => v.leadList.page({}, { limit: 20, cursor: v.deep(i) }, scopeOf(i)) },
    { name: name('leads, status=ftd'), run: (i) => v.leadList.page({ status: 'ftd' }, { limit: 20 }, scopeOf(i)) },
    {
      name: name('leads, one of them'),
      run: (i) => v.leadList.page({ affiliate_id: partnerOf(i * SCOPED) }, { limit: 20 }, scopeOf(i)),
    },
    { name: name('deliveries'), run: (i) => v.queue.page({}, { limit: 20 }, scopeOf(i)) },
    { name: name('deliveries, state=dead'), run: (i) => v.queue.page({ state: 'dead' }, { limit: 20 }, scopeOf(i)) },
    {
      name: name('deliveries, state=delivered, deep page'),
      run: (i) => v.queue.page({ state: 'delivered' }, { limit: 20, cursor: v.deep(i) }, scopeOf(i)),
    },
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
    const layout: SeedLayout = { stored, start, partners: PARTNERS, partnerOf, agentOf };
    const seeded = await seedLeads(mongo, layout, (msg) => ctx.log(`manager-views: ${msg}`));
    Object.assign(data, { reportDocuments: seeded.reportDocuments, seedS: seeded.seedS });
    const cellStore = new CellStore(cellsCollection(mongo.db));
    const deliveries = new DeliveryStore(c.deliveries, new ListIndex(c.deliveryList));

    const queue = new DeliveryQueue(c.deliveries, c.deliveryList);
    const leadList = new LeadList(c.leads, c.leadList);
    const day = (i: number) => new Date(start + (i % DAYS) * 86_400_000);
    // A cursor into the middle of a view (day 15 of 30): the page a manager reaches after paging a while.
    const deep = (i: number) => `${new Date(day(15).getTime() + i * 60_000).toISOString()}|z`;
    const views: View[] = [
      { name: 'deliveries, no filter', run: () => queue.page({}, { limit: 20 }) },
      { name: 'deliveries, state=dead', run: () => queue.page({ state: 'dead' }, { limit: 20 }) },
      {
        name: 'deliveries, state=delivered, deep page',
        run: (i) => queue.page({ state: 'delivered' }, { limit: 20, cursor: deep(i) }),
      },
      {
        name: 'deliveries, state=dead, partner',
        run: (i) => queue.page({ state: 'dead', affiliate_id: partnerOf(i) }, { limit: 20 }),
      },
      {
        name: 'deliveries, partner, event=lead.status_changed',
        run: (i) => queue.page({ affiliate_id: partnerOf(i), event: 'lead.status_changed' }, { limit: 20 }),
      },
      {
        name: 'deliveries, state=queued, a day',
        run: (i) =>
          queue.page({ state: 'queued', from: day(i).toISOString(), to: day(i + 1).toISOString() }, { limit: 20 }),
      },
      { name: "an agent's leads", run: (i) => leadList.agentPage(agentOf(i), { limit: 20 }) },
      { name: 'leads, no filter', run: () => leadList.page({}, { limit: 20 }) },
      { name: 'leads, no filter, deep page', run: (i) => leadList.page({}, { limit: 20, cursor: deep(i) }) },
      { name: 'leads, partner', run: (i) => leadList.page({ affiliate_id: partnerOf(i) }, { limit: 20 }) },
      { name: 'leads, status=ftd', run: () => leadList.page({ status: 'ftd' }, { limit: 20 }) },
      {
        name: 'leads, partner, depositors, a day',
        run: (i) =>
          leadList.page(
            {
              affiliate_id: partnerOf(i),
              is_depositor: true,
              from: day(i).toISOString(),
              to: day(i + 1).toISOString(),
            },
            { limit: 20 },
          ),
      },
      {
        name: 'leads, country=MT (0.5%, checked per entry)',
        run: () => leadList.page({ country_code: 'MT' }, { limit: 20 }),
      },
      {
        name: 'leads, partner, source',
        run: (i) => leadList.page({ affiliate_id: partnerOf(i), source: SOURCES[i % SOURCES.length] }, { limit: 20 }),
      },
      ...REPORTS.map(([name, days, groupBy]): View => ({
        name: `report, ${name}`,
        run: async (i) => {
          const to = new Date(start + (DAYS - 1 - (i % 3)) * 86_400_000);
          const report = await readReport(
            cellStore,
            {
              from: new Date(to.getTime() - (days - 1) * 86_400_000).toISOString().slice(0, 10),
              to: to.toISOString().slice(0, 10),
              group_by: groupBy,
            },
            to,
          );
          return { items: report.rows };
        },
      })),
      { name: 'audit log, partner', run: (i) => new AuditLog(c).list({ affiliate_id: partnerOf(i) }, { limit: 20 }) },
      { name: 'audit log, action', run: () => new AuditLog(c).list({ action: 'delivery.retry' }, { limit: 20 }) },
      {
        name: 'partners (offset)',
        run: (i) => findPage(c.partners, {}, { limit: 20, offset: i % 2 === 0 ? 0 : 20 }, (d) => d),
      },
      ...scopedViews({
        queue,
        leadList,
        audit: new AuditLog(c),
        cells: cellStore,
        partners: new PartnerService({ partners: c.partners } as PartnerServiceDeps),
        deep,
        to: new Date(start + (DAYS - 1) * 86_400_000),
      }),
      {
        name: 'replay start: first delivery of a day',
        run: async (i) => {
          for await (const d of deliveries.inRange(
            { partnerId: partnerOf(i), from: day(i), to: day(i + 1), events: [] },
            null,
          ))
            return { items: [d] };
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
      rows.push(
        [view.name, s.n, Math.round(items / requests), s.p50, s.p99, s.max].map((v) =>
          typeof v === 'number' ? Math.round(v * 10) / 10 : v,
        ),
      );
      ctx.log(`manager-views: ${view.name}: p50 ${s.p50.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms`);
    }
    data.views = results;
    const reveal = await timeContactReveals(ctx, env, mongo, {
      stored,
      leadAt: (n) => leadOf(n, layout).lead,
      requests: opts.quick ? 300 : 1000,
    });
    data.contactReveal = reveal;
    rows.push([
      "contact reveal: GET /api/leads/{id}/contact on the ingress, a CRM for the lead's agent (target p99 < 50 ms)",
      reveal.n,
      1,
      reveal.p50,
      reveal.p99,
      reveal.max,
    ]);
    const idle = await idleStoreCpu(ctx, env);
    data.idle = idle;
    rows.push([`store CPU, app idle ${IDLE_S} s (% of a core)`, 1, '', idle.perProcess['mongo-wire'] ?? '', '', '']);
    return {
      name: 'manager-views',
      title: 'Manager views over a million leads',
      data,
      notes: [],
      tables: [
        {
          title: `First pages of 20 with ${stored.toLocaleString('en')} leads and ${(stored * 2).toLocaleString('en')} deliveries stored (target: p99 < 200 ms)`,
          columns: ['view', 'requests', 'rows a page', 'p50 ms', 'p99 ms', 'max ms'],
          rows,
          note: "read through the manager's own code (src/manager), one request at a time, on MONGO_URL; the last row is the store's CPU while `main.js all` idles",
        },
      ],
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
    ctx.log(
      `manager-views: idle for ${IDLE_S} s: store ${cpu.perProcess['mongo-wire'] ?? '?'}% of a core, app ${cpu.perProcess.app ?? '?'}%`,
    );
    return cpu;
  } finally {
    await app?.stop();
  }
}
