import { MongoClient, type Collection } from 'mongodb';
import { Counter, Registry } from 'prom-client';
import { lastHour } from '../../src/manager/overview/overview-reader';
import type { Clock } from '../../src/shared/clock';
import { createLogger } from '../../src/shared/logger';
import { minutesCollection, type MinuteDoc } from '../../src/shared/overview/minute-counts';
import { MinuteRecorder } from '../../src/shared/overview/minute-recorder';
import { testConfig } from '../support/test-config';

// The overview's per-minute read model on the real store: every process's counts summed, kept
// across a restart of any of them (the reader holds nothing), each minute written once however
// often it is written again.
const config = testConfig();
let mongo: MongoClient;
let minutes: Collection<MinuteDoc>;
let now = Date.parse('2026-11-24T10:00:10Z');
const clock: Clock = { now: () => new Date(now) };
const logger = createLogger('silent');

beforeAll(async () => {
  mongo = await MongoClient.connect(config.mongo.url);
  minutes = minutesCollection(mongo.db(config.mongo.db));
});

afterAll(async () => {
  await mongo.db(config.mongo.db).dropDatabase();
  await mongo.close();
});

function processCounters() {
  const registry = new Registry();
  const requests = new Counter({
    name: 'lead_intake_requests_total',
    help: 'h',
    labelNames: ['endpoint', 'outcome', 'partner_id'],
    registers: [registry],
  });
  const deliveries = new Counter({
    name: 'lead_intake_callback_deliveries_total',
    help: 'h',
    labelNames: ['event', 'outcome', 'partner_id', 'test'],
    registers: [registry],
  });
  return { registry, requests, deliveries };
}

const totals = async (chart: 'leads' | 'callbacks') => {
  const sum: Record<string, number> = {};
  for (const m of (await lastHour(minutes, clock)).charts[chart].minutes)
    for (const [k, n] of Object.entries(m.counts)) sum[k] = (sum[k] ?? 0) + n;
  return sum;
};

it('sums what every process counted per minute, and keeps it when a process restarts', async () => {
  const ingress = processCounters();
  const dispatcher = processCounters();
  const a = new MinuteRecorder(ingress.registry, minutes, 'ingress-1', clock, logger);
  const b = new MinuteRecorder(dispatcher.registry, minutes, 'dispatcher-1', clock, logger);

  ingress.requests.inc({ endpoint: 'intake', outcome: 'accepted', partner_id: 'pa-1' }, 3);
  ingress.requests.inc({ endpoint: 'status', outcome: 'found', partner_id: 'pa-1' }); // a status lookup is not a lead
  dispatcher.deliveries.inc({ event: 'lead.accepted', outcome: 'delivered', partner_id: 'pa-1', test: 'false' }, 2);
  await Promise.all([a.record(), b.record()]);
  await a.record(); // nothing new: the same values again
  now += 60_000;
  ingress.requests.inc({ endpoint: 'intake', outcome: 'duplicate', partner_id: 'pa-1' });
  await a.stop();
  await b.stop();

  const chart = (await lastHour(minutes, clock)).charts.leads.minutes;
  expect(chart.at(-2)).toMatchObject({ start: '2026-11-24T10:00:00.000Z', counts: { accepted: 3 } });
  expect(chart.at(-1)).toMatchObject({ start: '2026-11-24T10:01:00.000Z', counts: { duplicate: 1 } });
  expect(await totals('callbacks')).toEqual({ delivered: 2 });

  // The ingress restarts: a new process, new counters from zero and a new writer; what the first one stored stays.
  const restarted = processCounters();
  const c = new MinuteRecorder(restarted.registry, minutes, 'ingress-2', clock, logger);
  restarted.requests.inc({ endpoint: 'intake', outcome: 'accepted', partner_id: 'pa-2' });
  await c.stop();
  expect(await totals('leads')).toEqual({ accepted: 4, duplicate: 1 });
  expect(await minutes.countDocuments()).toBe(3);
});

it('drops documents older than a day, by one _id range', async () => {
  const old = processCounters();
  now = Date.parse('2026-11-26T12:00:00Z');
  const recorder = new MinuteRecorder(old.registry, minutes, 'late', clock, logger);
  old.requests.inc({ endpoint: 'intake', outcome: 'accepted', partner_id: 'pa-1' });
  await recorder.stop();
  expect((await minutes.find().toArray()).map((d) => d._id)).toEqual(['2026-11-26T12|late']);
});
