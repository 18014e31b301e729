import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { argValue } from './lib/args';
import { summarise, type Summary } from './lib/stats';

// What the `views` scenario leaves out when comparing FerretDB's backends (docs/mongodb-ferretdb.md,
// "FerretDB on PostgreSQL"): on the same read-model documents as `views`, a point read by `_id`, the
// `_id`-range page, the page by secondary fields before and after a secondary index is created, and
// the size on disk (dbStats). Run it against each server in turn, never two at once:
//   npx tsx bench/pg-compare.ts [--docs 200000] [--pages 20] [--label sqlite]   (MONGO_URL picks the server)
// It uses its own database (backend_compare: PostgreSQL refuses schema names starting with pg_), dropped at the end; the result goes to bench/results/.
const STATES = ['dead', 'queued', 'delivered'];
const PARTNERS = 50;
const PAGE = 20;

async function timed(n: number, fn: (i: number) => Promise<unknown>): Promise<Summary> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    ms.push(performance.now() - t);
  }
  return summarise(ms);
}

async function main(): Promise<void> {
  const url = process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017';
  const docs = Number(argValue('--docs', '200000'));
  const pages = Number(argValue('--pages', '20'));
  const label = argValue('--label', new URL(url).port || 'mongo');
  const mongo = await MongoClient.connect(url);
  const db = mongo.db('backend_compare');
  const out: Record<string, unknown> = { url, docs, pages, label, startedAt: new Date().toISOString() };
  const log = (s: string): void => {
    process.stdout.write(`[pg-compare ${label}] ${s}\n`);
  };
  try {
    await db.dropDatabase();
    const views = db.collection<{ _id: string; state: string; partner_id: string; at: Date }>('views');
    const start = Date.UTC(2026, 9, 1);
    const id = (i: number): string => {
      const at = new Date(start + i * 1000);
      return `${STATES[i % 3]}|pa-${String(i % PARTNERS).padStart(3, '0')}|${at.toISOString()}|dl-${String(i).padStart(8, '0')}`;
    };
    let t = Date.now();
    for (let n = 0; n < docs; n += 2000) {
      await views.insertMany(
        Array.from({ length: Math.min(2000, docs - n) }, (_, j) => {
          const i = n + j;
          return {
            _id: id(i),
            state: STATES[i % 3] as string,
            partner_id: `pa-${String(i % PARTNERS).padStart(3, '0')}`,
            at: new Date(start + i * 1000),
          };
        }),
      );
    }
    out.seedS = (Date.now() - t) / 1000;
    out.seedDocsPerS = Math.round(docs / (out.seedS as number));
    log(`${docs} documents in ${out.seedS} s (${out.seedDocsPerS}/s)`);

    out.pointByIdMs = await timed(20, (i) => views.findOne({ _id: id((i * 7919) % docs) }));
    log(`findOne by _id: ${JSON.stringify(out.pointByIdMs)}`);

    out.pageByIdRangeMs = await timed(pages, (p) => {
      const prefix = `${STATES[p % 3]}|pa-${String((p * 7) % PARTNERS).padStart(3, '0')}|`;
      const cursor = `${prefix}${new Date(start + Math.floor((p * 7919) % docs) * 1000).toISOString()}`;
      return views
        .find({ _id: { $gt: prefix, $lt: cursor } })
        .sort({ _id: -1 })
        .limit(PAGE)
        .toArray();
    });
    log(`page by _id range: ${JSON.stringify(out.pageByIdRangeMs)}`);

    const secondary = (): Promise<Summary> =>
      timed(3, (p) =>
        views
          .find({ state: 'dead', partner_id: `pa-00${p * 3}` })
          .sort({ at: -1 })
          .limit(PAGE)
          .toArray(),
      );
    out.pageBySecondaryNoIndexMs = await secondary();
    log(`page by secondary fields, no index: ${JSON.stringify(out.pageBySecondaryNoIndexMs)}`);
    out.equalityOnlyNoSortMs = await timed(3, (p) =>
      views
        .find({ state: 'dead', partner_id: `pa-00${p * 3}` })
        .limit(PAGE)
        .toArray(),
    );
    log(`equality only, no sort: ${JSON.stringify(out.equalityOnlyNoSortMs)}`);

    t = Date.now();
    await views.createIndex({ state: 1, partner_id: 1, at: -1 }, { name: 'state_partner_at' });
    out.createIndexS = (Date.now() - t) / 1000;
    out.pageBySecondaryIndexedMs = await secondary();
    log(
      `index built in ${out.createIndexS} s; page by secondary fields, indexed: ${JSON.stringify(out.pageBySecondaryIndexedMs)}`,
    );

    const stats = await db.command({ dbStats: 1, scale: 1 });
    out.dbStats = {
      dataSize: stats.dataSize,
      storageSize: stats.storageSize,
      indexSize: stats.indexSize,
      totalSize: stats.totalSize,
    };
    log(`dbStats: ${JSON.stringify(out.dbStats)}`);
    if (process.argv.includes('--keep')) {
      log('database backend_compare kept (--keep)');
      return;
    }
  } finally {
    if (!process.argv.includes('--keep')) await db.dropDatabase().catch(() => undefined);
    await mongo.close();
    const file = join(__dirname, 'results', `pg-compare-${label}-${String(out.startedAt).replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
    log(`results: ${file}`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
