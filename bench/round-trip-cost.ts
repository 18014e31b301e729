import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import Redis from 'ioredis';
import type { Kafka } from 'kafkajs';
import { request, Agent } from 'undici';
import { bareKafka } from '../src/shared/kafka/client';
import { argValue } from './lib/args';
import { costOneAtATime, helperProcess, perCall, type CallCost } from './lib/call-cost';
import { cpuTimesOf } from './lib/proc';
import { renderTable, writeJson } from './lib/report';
import { r1 } from './lib/stats';

// What one round trip of each client a lead meets outside the store costs the process that makes it,
// in CPU (user and system, process.cpuUsage), apart from the server: kafkajs sending one message a
// request (the ingress's intake command) and 20 (the processor's replies and events of a chunk);
// kafkajs fetching, from a backlog and at a steady rate fed by another process (at 200 leads/s each
// fetch brings what arrived since the last); an ioredis script call (the ingress's admission), hot
// and after the process idled 1, 5 or 20 ms (at 200 leads/s a role idles between leads, and a
// wake-up is not free), beside a bare timer's wake-up; a signed-callback-sized POST with undici (the
// dispatcher) and the same POST as a fastify server sees it (the ingress). The store's commands:
// bench/driver-cost.ts. No codec, schema or logic of ours.
//   npx tsx bench/round-trip-cost.ts [--messages 4000] [--bytes 2000] [--rate 200] [--seconds 20]
// Topics of its own (6 partitions) and one Redis key, deleted at the end; the result goes to bench/results/.
const PARTITIONS = 6;
const WAKE_GAPS_MS = [1, 5, 20];

type Cost = CallCost & { fetches?: number };

async function sends(kafka: Kafka, topic: string, n: number, perRequest: number, value: Buffer): Promise<Cost> {
  const producer = kafka.producer({ maxInFlightRequests: 1, allowAutoTopicCreation: false });
  await producer.connect();
  const messages = (i: number) => Array.from({ length: perRequest }, (_, j) => ({ key: `k${i}-${j}`, value }));
  const kind = `kafkajs send, ${perRequest} message${perRequest > 1 ? 's' : ''} a request (per message)`;
  const cost = await costOneAtATime(kind, n / perRequest, (i) => producer.send({ topic, messages: messages(i) }), {
    warm: 300 / perRequest,
  });
  await producer.disconnect();
  return { kind, calls: n, userUs: r1(cost.userUs / perRequest), sysUs: r1(cost.sysUs / perRequest) };
}

// Reads `expect` records with a batch consumer, offsets by hand as the roles commit them
// (batch-commit.ts; none here), and returns its CPU per record from the first record on.
async function consume(kafka: Kafka, topic: string, group: string, expect: number, kind: string): Promise<Cost> {
  const consumer = kafka.consumer({ groupId: group, maxWaitTimeInMs: 500, sessionTimeout: 30_000 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  let seen = 0;
  let fetches = 0;
  let cpu: NodeJS.CpuUsage | null = null;
  consumer.on(consumer.events.FETCH, () => {
    if (cpu) fetches++;
  });
  const used = await new Promise<NodeJS.CpuUsage>((resolve, reject) => {
    consumer
      .run({
        autoCommit: false,
        eachBatch: async ({ batch, heartbeat }) => {
          cpu ??= process.cpuUsage();
          seen += batch.messages.length;
          await heartbeat();
          if (seen >= expect) resolve(process.cpuUsage(cpu));
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  return { ...perCall(kind, seen, used), fetches };
}

// Another process sends `rate` messages a second, one a request, for `seconds`.
function steadyProducer(brokers: string, topic: string, rate: number, seconds: number, bytes: number): ChildProcess {
  const args = [brokers, topic, rate, seconds, bytes].map(String);
  const script = join(__dirname, 'steady-producer.ts');
  return spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: ['ignore', 'inherit', 'inherit'] });
}

async function kafkaCosts(brokers: string, n: number, bytes: number, rate: number, seconds: number): Promise<Cost[]> {
  const kafka = bareKafka(brokers.split(','));
  const admin = kafka.admin();
  await admin.connect();
  const run = `round-trip-cost-${Date.now()}`;
  const [backlog, steady] = [`${run}-backlog`, `${run}-steady`];
  await admin.createTopics({
    waitForLeaders: true,
    topics: [backlog, steady].map((topic) => ({ topic, numPartitions: PARTITIONS, replicationFactor: 1 })),
  });
  const value = Buffer.alloc(bytes, 120);
  const costs: Cost[] = [];
  try {
    costs.push(await sends(kafka, backlog, n, 1, value));
    costs.push(await sends(kafka, backlog, n, 20, value));
    costs.push(await consume(kafka, backlog, `${run}-a`, n * 2, 'kafkajs batch consumer, a backlog (per record)'));
    const child = steadyProducer(brokers, steady, rate, seconds, bytes);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const kind = `kafkajs batch consumer, ${rate} records a second (per record)`;
    costs.push(await consume(kafka, steady, `${run}-b`, rate * seconds, kind));
    await exited;
  } finally {
    await admin.deleteTopics({ topics: [backlog, steady] }).catch(() => undefined);
    await admin.disconnect();
  }
  return costs;
}

async function redisCosts(url: string, n: number): Promise<Cost[]> {
  const redis = new Redis(url, { enableAutoPipelining: true });
  const key = `round-trip-cost:${Date.now()}`;
  // About the admission's work: read a hash, write it, set its expiry.
  redis.defineCommand('claimLike', {
    numberOfKeys: 1,
    lua: `local r = redis.call('HMGET', KEYS[1], 'state', 'at')
      redis.call('HSET', KEYS[1], 'state', 'processing', 'at', ARGV[1]) redis.call('EXPIRE', KEYS[1], 60)
      return { 'claimed', r[2] or '' }`,
  });
  const claim = (redis as unknown as { claimLike(k: string, a: string): Promise<unknown> }).claimLike.bind(redis);
  const call = (i: number) => claim(key, String(i));
  try {
    const costs: Cost[] = [await costOneAtATime('ioredis script call (EVALSHA)', n, call, { warm: 500 })];
    // The same call when the process was idle before it, as a role is between leads at 200/s; and
    // the wake-up alone (a timer, nothing else), which the first includes.
    for (const gapMs of WAKE_GAPS_MS) {
      const calls = Math.ceil(n / gapMs / 2);
      costs.push(await costOneAtATime(`the same, after ${gapMs} ms idle`, calls, call, { gapMs }));
      costs.push(
        await costOneAtATime(`a timer waking the process after ${gapMs} ms`, calls, async () => undefined, { gapMs }),
      );
    }
    return costs;
  } finally {
    await redis.del(key);
    redis.disconnect();
  }
}

// undici POSTs of `bytes` of JSON to a fastify server in a helper process, one at a time over one
// keep-alive connection: the client's CPU here, the server's from /proc before and after.
async function httpCosts(n: number, bytes: number): Promise<Cost[]> {
  const server = await helperProcess(`
    const app = require('fastify')();
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_r, body, done) => done(null, body));
    app.post('/in', async (req) => ({ id: 'le-1', status: 'accepted', size: req.body.length }));
    app.listen({ port: 0, host: '127.0.0.1' }).then(() => process.stdout.write(app.server.address().port + '\\n'));`);
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: 1 });
  const base = `http://127.0.0.1:${server.port}`;
  const body = JSON.stringify({ event: 'lead.accepted', data: 'x'.repeat(bytes) });
  const post = async () => {
    const res = await request(`${base}/in`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'x-signature': 'sha256=0' },
      dispatcher: agent,
    });
    await res.body.json();
  };
  const serverCpu = (): NodeJS.CpuUsage => {
    const t = cpuTimesOf(server.child.pid ?? -1);
    if (!t) throw new Error('the server helper is gone');
    return { user: t.user * 1e6, system: t.system * 1e6 };
  };
  try {
    const before = serverCpu();
    const client = await costOneAtATime(`undici POST of ${bytes} bytes, the client`, n, post, { warm: 500 });
    const after = serverCpu();
    const used = { user: after.user - before.user, system: after.system - before.system };
    return [client, perCall(`the same POST, a fastify server (with its warm-up)`, n + 500, used)];
  } finally {
    await agent.close();
    server.child.kill();
  }
}

async function main(): Promise<void> {
  const brokers = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const n = Number(argValue('--messages', '4000'));
  const bytes = Number(argValue('--bytes', '2000'));
  const rate = Number(argValue('--rate', '200'));
  const seconds = Number(argValue('--seconds', '20'));
  const costs = [
    ...(await kafkaCosts(brokers, n, bytes, rate, seconds)),
    ...(await redisCosts(redisUrl, n)),
    ...(await httpCosts(n, bytes)),
  ];
  process.stdout.write(
    `${renderTable({
      title: `CPU a round trip, ${bytes}-byte payloads, one at a time unless said (Kafka: ${PARTITIONS} partitions)`,
      columns: ['round trip', 'calls', 'fetches', 'user us', 'sys us'],
      rows: costs.map((c) => [c.kind, c.calls, c.fetches ?? '', c.userUs, c.sysUs]),
    })}\n`,
  );
  const out = join('bench', 'results', `round-trip-cost-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeJson(out, { brokers, redisUrl, bytes, rate, node: process.version, costs });
  process.stdout.write(`results: ${out}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
