import { connect } from 'node:net';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { argValue } from './lib/args';
import { costOneAtATime, helperProcess, type TimedCost } from './lib/call-cost';
import { renderTable, writeJson } from './lib/report';

// What one database command costs the client process, apart from the server: CPU (user and system,
// process.cpuUsage) and wall time per command, one command at a time after a warm-up, for the shapes
// the roles send (a ping, a find of 20 ids by $in, an insert of 20 documents through insertMany and
// as a raw insert command), beside a bare TCP round trip to a helper process (the floor of any
// request/answer on this machine). The roles' CPU profiles put socket writes (writeBuffer) at the top;
// comparing that share with the system CPU measured here tells how much of it is this process's CPU.
//   npx tsx bench/driver-cost.ts [--commands 3000]      (MONGO_URL picks the server)
// It uses its own database (driver_cost), dropped at the end; the result goes to bench/results/.
const DOCS = 20;
const DOC_BYTES = 1200; // about a lead document with its sealed personal data

// Each shape after a warm-up of up to 500 commands (JIT, pool, buffers).
const measure = (kind: string, n: number, once: (i: number) => Promise<unknown>): Promise<TimedCost> =>
  costOneAtATime(kind, n, once, { warm: Math.min(500, n) });

// A helper process that answers every chunk it reads with 16 bytes.
async function echoRoundTrips(n: number): Promise<TimedCost> {
  const server = await helperProcess(
    `require('net').createServer((s) => s.on('data', (d) => s.write(d.subarray(0, 16))))
    .listen(0, '127.0.0.1', function () { process.stdout.write(String(this.address().port) + '\\n'); })`,
  );
  try {
    const socket = connect(server.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.setNoDelay(true);
    const payload = Buffer.alloc(200, 1);
    const cost = await measure(
      'TCP round trip (200 bytes, no driver)',
      n,
      () =>
        new Promise((resolve) => {
          socket.once('data', resolve);
          socket.write(payload);
        }),
    );
    socket.destroy();
    return cost;
  } finally {
    server.child.kill();
  }
}

async function main(): Promise<void> {
  const url = process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017';
  const n = Number(argValue('--commands', '3000'));
  const mongo = await MongoClient.connect(url);
  const db = mongo.db('driver_cost');
  const col = db.collection<{ _id: string; body: string; at: Date }>('docs');
  const body = 'x'.repeat(DOC_BYTES);
  const docs = (i: number) => Array.from({ length: DOCS }, (_, j) => ({ _id: `d-${i}-${j}`, body, at: new Date() }));
  const costs: TimedCost[] = [];
  try {
    await db.dropDatabase();
    costs.push(await echoRoundTrips(n));
    costs.push(await measure('ping', n, () => db.command({ ping: 1 })));
    costs.push(
      await measure(`find, ${DOCS} ids by $in (none stored)`, n, (i) =>
        col.find({ _id: { $in: Array.from({ length: DOCS }, (_, j) => `none-${i}-${j}`) } }).toArray(),
      ),
    );
    costs.push(
      await measure(`insertMany, ${DOCS} documents of ${DOC_BYTES} bytes`, n, (i) =>
        col.insertMany(docs(i), { ordered: false }),
      ),
    );
    costs.push(
      await measure(`insert command, ${DOCS} documents of ${DOC_BYTES} bytes`, n, (i) =>
        db.command({ insert: col.collectionName, documents: docs(n + 1000 + i), ordered: false }),
      ),
    );
  } finally {
    await db.dropDatabase().catch(() => undefined);
    await mongo.close();
  }
  process.stdout.write(
    `${renderTable({
      title: `Client cost per command, ${n} one at a time against ${url}`,
      columns: ['command', 'user us', 'sys us', 'wall us'],
      rows: costs.map((c) => [c.kind, c.userUs, c.sysUs, c.wallUs]),
    })}\n`,
  );
  const out = join('bench', 'results', `driver-cost-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeJson(out, { url, commands: n, node: process.version, costs });
  process.stdout.write(`results: ${out}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
