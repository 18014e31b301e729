import { MongoClient } from 'mongodb';
import type { BenchContext, ScenarioResult } from '../lib/context';
import { scenarioEnv } from '../lib/env';
import { dropScenario } from '../lib/setup';
import { summarise } from '../lib/stats';

// The groundwork of the manager's views at scale: a read model whose _id sorts in its
// view's order (`<state>|<partner>|<time>|<delivery id>`), read a page at a time by `_id` range in
// `_id` order, as the delivery queue, an agent's leads or a report would be, on MONGO_URL with
// `--views N` documents stored (1,000,000 by default, 100,000 with --quick). For comparison, the
// same page by a secondary field (what the manager's lists do today), which the local default
// serves by reading the whole collection.
const STATES = ['dead', 'queued', 'delivered'];
const PARTNERS = 50;
const PAGE = 20;

export async function viewsScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const { opts } = ctx;
  const { env } = scenarioEnv('views', opts.logLevel);
  const stored = opts.viewDocs;
  const pages = opts.quick ? 100 : 300;
  const mongo = await MongoClient.connect(env.MONGO_URL as string);
  const data: Record<string, unknown> = { stored, pages, pageSize: PAGE };
  const notes: string[] = [];
  try {
    const views = mongo
      .db(env.MONGO_DB)
      .collection<{ _id: string; state: string; partner_id: string; at: Date }>('views');
    const t0 = Date.now();
    const start = Date.UTC(2026, 9, 1);
    for (let n = 0; n < stored; n += 2000) {
      await views.insertMany(
        Array.from({ length: Math.min(2000, stored - n) }, (_, j) => {
          const i = n + j;
          const at = new Date(start + i * 1000);
          const state = STATES[i % 3] as string;
          const partner = `pa-${String(i % PARTNERS).padStart(3, '0')}`;
          return {
            _id: `${state}|${partner}|${at.toISOString()}|dl-${String(i).padStart(8, '0')}`,
            state,
            partner_id: partner,
            at,
          };
        }),
      );
    }
    data.seedS = Math.round((Date.now() - t0) / 1000);
    ctx.log(`views: ${stored} read-model documents stored in ${data.seedS} s; ${pages} pages`);
    const ms: number[] = [];
    let short = 0;
    for (let p = 0; p < pages; p++) {
      const prefix = `${STATES[p % 3]}|pa-${String((p * 7) % PARTNERS).padStart(3, '0')}|`;
      // Newest first, from a cursor somewhere in the partner's range (the next page of a list).
      const cursor = `${prefix}${new Date(start + Math.floor((p * 7919) % stored) * 1000).toISOString()}`;
      const t = performance.now();
      const page = await views
        .find({ _id: { $gt: prefix, $lt: cursor } })
        .sort({ _id: -1 })
        .limit(PAGE)
        .toArray();
      ms.push(performance.now() - t);
      if (page.length < PAGE) short++;
    }
    const byId = summarise(ms);
    const secondary: number[] = [];
    for (let p = 0; p < (opts.quick ? 2 : 3); p++) {
      const t = performance.now();
      await views
        .find({ state: 'dead', partner_id: `pa-00${p}` })
        .sort({ at: -1 })
        .limit(PAGE)
        .toArray();
      secondary.push(performance.now() - t);
    }
    const bySecondary = summarise(secondary);
    data.pageByIdRangeMs = byId;
    data.pageBySecondaryFieldMs = bySecondary;
    data.shortPages = short;
    ctx.log(
      `views: page by _id range p50 ${byId.p50.toFixed(1)} ms, p99 ${byId.p99.toFixed(1)} ms; by a secondary field ${bySecondary.p50.toFixed(0)} ms`,
    );
    return {
      name: 'views',
      title: 'Manager views: read-model pages',
      data,
      notes,
      tables: [
        {
          title: `A page of ${PAGE} from a read model of ${stored.toLocaleString('en')} documents (target: p99 < 200 ms)`,
          columns: ['read', 'pages', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms'],
          rows: [
            ['_id range, _id order (read model)', byId.n, byId.p50, byId.p95, byId.p99, byId.max],
            [
              "secondary fields, sorted (today's lists)",
              bySecondary.n,
              bySecondary.p50,
              bySecondary.p95,
              bySecondary.p99,
              bySecondary.max,
            ],
          ].map((r) => r.map((v) => (typeof v === 'number' ? Math.round(v * 10) / 10 : v))),
          note: `on ${env.MONGO_URL} (the local default, FerretDB 1.24.2 on SQLite with scripts/services/ferretdb/patches, serves _id ranges in _id order from the index: patch 0004)`,
        },
      ],
    };
  } finally {
    await mongo.close();
    await dropScenario(env);
  }
}
