import { randomUUID } from 'node:crypto';
import type { CommandFailedEvent, CommandStartedEvent, CommandSucceededEvent } from 'mongodb';
import { DeliveryStore, newDeliveryDoc } from '../../src/dispatcher/delivery-store';
import { RecordBatcher } from '../../src/dispatcher/record-batcher';
import { decideAfterAttempt, retrySchedule } from '../../src/dispatcher/retry-policy';
import { sealLead } from '../../src/ingress/seal-lead';
import type { IntakeKeyDoc } from '../../src/shared/mongo/documents';
import { IntakeKeyStore } from '../../src/shared/store/intake-keys';
import { PartnerKeys } from '../../src/shared/partners/partner-keys';
import type { KafkaMessage } from 'kafkajs';
import { processorParts } from '../../src/processor';
import type { LifecycleMessage } from '../../src/processor/lifecycle';
import { loadConfig } from '../../src/shared/config';
import type { Decoded } from '../../src/shared/kafka/batch-consumer';
import { requestBodyHash } from '../../src/shared/crypto/lookup-hash';
import { PiiCipher } from '../../src/shared/crypto/pii-cipher';
import { createLogger } from '../../src/shared/logger';
import { connectMongo, ensureIndexes } from '../../src/shared/mongo/client';
import { PartnerDirectory } from '../../src/shared/partners/partner-directory';
import { createRedis } from '../../src/shared/redis/client';
import type { Runtime } from '../../src/shared/runtime';
import type { AgentAction, IntakeCommand, LeadEvent } from '../../src/shared/schemas';
import type { BenchContext, ScenarioResult, Table } from '../lib/context';
import { scenarioEnv } from '../lib/env';
import { CpuMeter } from '../lib/proc';
import { dropScenario } from '../lib/setup';
import { summarise, r1, r2, type Summary } from '../lib/stats';
import { ListIndex } from '../../src/shared/store/list-index';
import { AgentService } from '../../src/manager/agent-service';
import { partnerService } from '../../src/manager/services';

// The MongoDB-wire server alone, under the processor's and the dispatcher's exact access pattern:
// the real IntakeBatch and Lifecycle (chunks of CHUNK commands, as their consumers hand them over)
// and the real DeliveryStore run here against MONGO_URL, with Kafka left out. Every command the
// driver sends is timed (command monitoring), so the table shows what one lead costs in database
// round trips and how long each kind takes, and how that changes as collections grow.
const CHUNK = 100;

interface OpStats {
  count: number;
  ms: number[];
}

// A command's shape: name, collection, and the fields its filter names (`_id` alone is the one
// FerretDB may serve from an index), e.g. "find leads {pending_events}".
function shapeOf(e: CommandStartedEvent): string {
  const c = e.command as Record<string, unknown>;
  const name = e.commandName;
  const coll = String(c[name] ?? '');
  const keys = (f: unknown): string => {
    if (!f || typeof f !== 'object') return '';
    return `{${Object.entries(f as Record<string, unknown>)
      .map(([k, v]) =>
        v && typeof v === 'object' && !(v instanceof Date) && !Array.isArray(v)
          ? `${k}:${Object.keys(v as object).join(',')}`
          : k,
      )
      .join(' ')}}`;
  };
  if (name === 'find' || name === 'count' || name === 'findAndModify')
    return `${name} ${coll} ${keys(c.filter ?? c.query)}`;
  if (name === 'update' || name === 'delete') {
    const first = (c.updates ?? c.deletes) as { q?: unknown }[] | undefined;
    return `${name} ${coll} ${keys(first?.[0]?.q)}`;
  }
  if (name === 'aggregate')
    return `${name} ${coll} ${keys((c.pipeline as Record<string, unknown>[] | undefined)?.[0]?.$match)}`;
  return `${name} ${coll}`;
}

class CommandLog {
  private ops = new Map<string, OpStats>();
  private shapes = new Map<number, string>();
  failures = 0;
  started(e: CommandStartedEvent): void {
    this.shapes.set(e.requestId, shapeOf(e));
  }
  take(): Map<string, OpStats> {
    const ops = this.ops;
    this.ops = new Map();
    return ops;
  }
  ok(e: CommandSucceededEvent): void {
    if (
      e.commandName === 'endSessions' ||
      e.commandName === 'ping' ||
      e.commandName === 'hello' ||
      e.commandName === 'isMaster'
    )
      return;
    const key = this.shapes.get(e.requestId) ?? e.commandName;
    this.shapes.delete(e.requestId);
    const s = this.ops.get(key) ?? { count: 0, ms: [] };
    s.count++;
    s.ms.push(e.duration);
    this.ops.set(key, s);
  }
  failed(e: CommandFailedEvent): void {
    this.failures++;
    this.ok(e as unknown as CommandSucceededEvent); // duplicate-key inserts are part of the pattern
  }
}

interface Window {
  untilS: number;
  totalDocs: number; // commands (or deliveries) handled by the end of the window
  perS: number;
  findP50: number;
  insertP50: number;
  updateP50: number;
}

interface ShapeTrend {
  firstWindowP50: number;
  lastWindowP50: number;
}

interface PatternResult {
  concurrency: number;
  seconds: number;
  units: number;
  perS: number;
  unitMs: Summary; // one lead (decide + publish + assign), or one delivery (create + record)
  stageMs: Record<string, Summary>;
  opsPerUnit: Record<string, number>;
  opMs: Record<string, Summary>;
  windows: Window[];
  trend: Record<string, ShapeTrend>; // p50 of each command shape in the first and the last window
  cpu: Record<string, number>;
  othersPct: number;
}

export async function mongoScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const { opts } = ctx;
  const { env } = scenarioEnv('mongo', 'warn', { ...opts.roleEnv, ROLE: 'processor' });
  const config = loadConfig(env);
  const mongo = await connectMongo(config);
  await ensureIndexes(mongo.collections);
  // Listening only from here on: the index creation above is not part of any pattern.
  const log = new CommandLog();
  mongo.client.on('commandStarted', (e) => log.started(e));
  mongo.client.on('commandSucceeded', (e) => log.ok(e));
  mongo.client.on('commandFailed', (e) => log.failed(e));
  const cipher = new PiiCipher(config.crypto.encryptionKeys, config.crypto.activeKeyId);
  const noKafka = {
    producer: { send: async () => [] },
    codec: { encode: async () => Buffer.alloc(0) },
    topics: { leadEvents: 'none' },
  };
  // The processor's pattern includes its Redis round trips (fraud-signal bursts, partner caps).
  const redis = createRedis(config, 'bench-mongo');
  const rt = {
    config,
    logger: createLogger('error'),
    mongo,
    cipher,
    redis,
    partners: new PartnerDirectory(
      mongo.collections.partners,
      new PartnerKeys(mongo.collections.partnerKeys),
      cipher,
      `${config.redis.prefix}partner-changed`,
    ),
    ...noKafka,
  } as unknown as Runtime;
  const meter = new CpuMeter(() => ctx.services());
  const seconds = opts.quick ? 8 : 20;
  const results: Record<string, PatternResult> = {};
  const notes: string[] = [];
  try {
    const { partner } = await partnerService(rt).create({ name: 'bench mongo partner' });
    const agents = new AgentService(rt.mongo.collections.agents, rt.mongo.collections.agentActivity);
    await agents.create({ name: 'bench agent a' });
    await agents.create({ name: 'bench agent b' });
    const { roster, batch, lifecycle } = processorParts(rt);
    await roster.refresh();
    const accepted: string[] = [];

    // One intake command as the ingress seals it, with its data key to store first as the ingress
    // does; 10% repeat an earlier phone (duplicates).
    let n = 0;
    const intakeKeys = new IntakeKeyStore(rt.mongo.db);
    const command = (): { cmd: IntakeCommand; key: IntakeKeyDoc } => {
      const i = n++;
      const phoneOf = i > 20 && i % 10 === 0 ? i - 7 : i;
      const phone = `+49152${String(10_000_000 + phoneOf).slice(-8)}`;
      const email = `m${i}@example.com`;
      const { record: lead, key } = sealLead(
        {
          external_id: `ext-${i}`,
          ip: '203.0.113.7',
          country_code: 'DE',
          language: 'de',
          source: 'benchmark',
          phone,
          email,
        },
        cipher,
        config.crypto.hashKey,
        new Date(),
      );
      return {
        key,
        cmd: {
          correlation_id: randomUUID(),
          reply_to: 'bench',
          partner_id: partner.id,
          idempotency_key: randomUUID(),
          body_hash: requestBodyHash(config.crypto.hashKey, Buffer.from(String(i))),
          received_at: new Date().toISOString(),
          lead,
        },
      };
    };

    // What the processor's intake consumer does per chunk, minus Kafka (decode, reply, publish).
    const oneChunk = async (stages: Record<string, number[]>): Promise<void> => {
      const made = Array.from({ length: CHUNK }, command);
      await Promise.all(made.map(({ key }) => intakeKeys.put(key))); // the ingress's work, not timed here
      const t0 = performance.now();
      const chunk = await batch.decide(
        made.map(({ cmd }) => cmd),
        new Date(),
      );
      const t1 = performance.now();
      (stages.decide ??= []).push(t1 - t0);
      await batch.storeDecisions(chunk.decisions, new Date());
      (stages.store ??= []).push(performance.now() - t1);
      for (const { decision } of chunk.replies)
        if (decision.outcome === 'accepted' && decision.lead_id) accepted.push(decision.lead_id);
    };
    ctx.log(
      `mongo: processor intake pattern for ${seconds} s, chunks of ${CHUNK} at concurrency 6 (the intake consumer's partitions)`,
    );
    results.processor = await pattern(6, seconds, oneChunk, log, meter, () => n);

    // What the lead owner does with a chunk of agent actions (contacted) on those leads.
    let a = 0;
    const oneCrmChunk = async (stages: Record<string, number[]>): Promise<void> => {
      const ids = accepted.splice(0, CHUNK);
      if (ids.length === 0) return;
      a += ids.length;
      const records = ids.map((lead_id, i): Decoded<LifecycleMessage> => ({
        topic: 'agentActions',
        partition: 0,
        message: { offset: String(i) } as KafkaMessage,
        value: {
          action_id: randomUUID(),
          lead_id,
          status: 'contacted',
          occurred_at: new Date().toISOString(),
        } satisfies AgentAction,
      }));
      const t0 = performance.now();
      await lifecycle.apply(records, { partition: 0, generation: 0 }, new Date());
      (stages.apply ??= []).push(performance.now() - t0);
    };
    ctx.log(`mongo: lead owner pattern (agent actions), chunks of ${CHUNK} at concurrency 6`);
    results.lifecycle = await pattern(6, seconds, oneCrmChunk, log, meter, () => a);

    // The dispatcher: one delivered attempt's record, written with the others of a few ms in one insertMany.
    const store = new DeliveryStore(mongo.collections.deliveries, new ListIndex(mongo.collections.deliveryList));
    const batcher = new RecordBatcher(store, rt.logger);
    const schedule = retrySchedule([60, 300, 1800, 7200]);
    let d = 0;
    const oneDelivery = async (stages: Record<string, number[]>): Promise<void> => {
      const i = d++;
      const event: LeadEvent = {
        event_id: `le-${i}:0`,
        event: 'lead.accepted',
        lead_id: `le-${i}`,
        partner_id: partner.id,
        external_lead_id: `ext-${i}`,
        our_status: 'new',
        is_depositor: false,
        occurred_at: new Date().toISOString(),
      };
      const now = new Date();
      const t0 = performance.now();
      const decision = decideAfterAttempt(
        { attemptsMade: 0, attemptsLeft: schedule.maxAttempts },
        'delivered',
        Date.now(),
        schedule,
      );
      await batcher.add(
        newDeliveryDoc(event, schedule.maxAttempts, now, {
          at: now,
          result: { httpStatus: 200, error: null, responseBody: 'ok', durationMs: 1 },
          decision,
        }),
        () => false,
      );
      (stages.record ??= []).push(performance.now() - t0);
    };
    ctx.log(`mongo: dispatcher pattern for ${seconds} s at concurrency 32`);
    results.dispatcher = await pattern(32, seconds, oneDelivery, log, meter, () => d);

    if (log.failures > 0)
      notes.push(
        `${log.failures} commands failed (expected: duplicate-key inserts of dedup claims for duplicate leads)`,
      );
  } finally {
    redis.disconnect();
    await mongo.client.close().catch(() => undefined);
    await dropScenario(env);
  }

  const p = results.processor as PatternResult;
  const life = results.lifecycle as PatternResult;
  const dsp = results.dispatcher as PatternResult;
  const opRows = (r: PatternResult) =>
    Object.entries(r.opsPerUnit).map(([op, per]) => [
      op,
      per,
      r.opMs[op]?.p50 ?? null,
      r.opMs[op]?.p99 ?? null,
      r.trend[op]?.firstWindowP50 ?? null,
      r.trend[op]?.lastWindowP50 ?? null,
    ]);
  const opColumns = (unit: string) => [
    'command (collection, filter fields)',
    `per ${unit}`,
    'p50 ms',
    'p99 ms',
    'p50 first window',
    'p50 last window',
  ];
  const tables: Table[] = [
    {
      title: `MongoDB-wire server (${config.mongo.url}) under the processor's and dispatcher's exact access pattern (no Kafka)`,
      columns: [
        'pattern',
        'concurrency',
        'units',
        'units/s',
        'unit p50 ms',
        'unit p99 ms',
        'db cpu%',
        'redis cpu%',
        'others cpu%',
      ],
      rows: (
        [
          [`processor: chunks of ${CHUNK} leads decided, stored, assigned`, p],
          [`lead owner: chunks of ${CHUNK} agent actions applied`, life],
          ['dispatcher: delivery created+recorded', dsp],
        ] as const
      ).map(([label, r]) => [
        label,
        r.concurrency,
        r.units,
        r.perS,
        r.unitMs.p50,
        r.unitMs.p99,
        r.cpu['mongo-wire'] ?? null,
        r.cpu.redis ?? null,
        r.othersPct,
      ]),
      note: 'units are leads (processor, lead owner) and deliveries (dispatcher); units/s is the ceiling the database puts on them, whatever Kafka and HTTP can do; unit p50/p99 are per call: a chunk for the chunked patterns',
    },
    {
      title: 'Database commands per lead (processor intake pattern)',
      columns: opColumns('lead'),
      rows: opRows(p),
      note: `stages p50 per chunk of ${CHUNK}: decide ${p.stageMs.decide?.p50} ms, store decisions ${p.stageMs.store?.p50} ms`,
    },
    {
      title: 'Database commands per agent action (lead owner pattern)',
      columns: opColumns('action'),
      rows: opRows(life),
    },
    {
      title: 'Database commands per delivery (dispatcher pattern)',
      columns: opColumns('delivery'),
      rows: opRows(dsp),
    },
    {
      title: 'As the collections grow (processor pattern, per window)',
      columns: ['until s', 'commands so far', 'leads/s', 'find p50 ms', 'insert p50 ms', 'update p50 ms'],
      rows: p.windows.map((w) => [w.untilS, w.totalDocs, w.perS, w.findP50, w.insertP50, w.updateP50]),
    },
  ];
  return {
    name: 'mongo',
    title: 'MongoDB-wire access pattern',
    tables,
    data: { mongoUrl: config.mongo.url, ...results },
    notes,
  };
}

async function pattern(
  concurrency: number,
  seconds: number,
  unit: (stages: Record<string, number[]>) => Promise<void>,
  log: CommandLog,
  meter: CpuMeter,
  issued: () => number,
): Promise<PatternResult> {
  log.take();
  const stages: Record<string, number[]> = {};
  const unitMs: number[] = [];
  const all = new Map<string, OpStats>();
  const windows: Window[] = [];
  const perWindow: Map<string, OpStats>[] = [];
  const start = performance.now();
  const end = start + seconds * 1000;
  const first = issued();
  let done = 0;
  let windowDone = 0;
  const windowMs = Math.max(2000, (seconds * 1000) / 8);
  let nextWindow = start + windowMs;
  meter.start();
  const closeWindow = () => {
    const ops = log.take();
    perWindow.push(ops);
    for (const [k, v] of ops) {
      const a = all.get(k) ?? { count: 0, ms: [] };
      a.count += v.count;
      a.ms.push(...v.ms);
      all.set(k, a);
    }
    const p50 = (names: string[]) =>
      summarise([...ops].filter(([k]) => names.includes(k.split(' ')[0] as string)).flatMap(([, v]) => v.ms)).p50;
    windows.push({
      untilS: r1((performance.now() - start) / 1000),
      totalDocs: issued(),
      perS: r1(windowDone / (windowMs / 1000)),
      findP50: p50(['find', 'count']),
      insertP50: p50(['insert']),
      updateP50: p50(['update', 'findAndModify']),
    });
    windowDone = 0;
  };
  const worker = async () => {
    while (performance.now() < end) {
      const t = performance.now();
      await unit(stages);
      unitMs.push(performance.now() - t);
      done++;
      windowDone++;
      if (performance.now() >= nextWindow) {
        nextWindow += windowMs;
        closeWindow();
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const cpu = meter.stop();
  closeWindow();
  const elapsed = (performance.now() - start) / 1000;
  const units = issued() - first;
  return {
    concurrency,
    seconds: r1(elapsed),
    units: done,
    perS: r1(units / elapsed),
    unitMs: summarise(unitMs),
    stageMs: Object.fromEntries(Object.entries(stages).map(([k, v]) => [k, summarise(v)])),
    opsPerUnit: Object.fromEntries(
      [...all].sort((a, b) => b[1].count - a[1].count).map(([k, v]) => [k, r2(v.count / Math.max(1, units))]),
    ),
    opMs: Object.fromEntries([...all].map(([k, v]) => [k, summarise(v.ms)])),
    windows,
    trend: trendOf(perWindow.filter((w) => w.size > 0)),
    cpu: cpu.perProcess,
    othersPct: cpu.othersPct,
  };
}

function trendOf(windows: Map<string, OpStats>[]): Record<string, ShapeTrend> {
  const first = windows[0];
  const last = windows[windows.length - 1];
  const out: Record<string, ShapeTrend> = {};
  for (const key of new Set([...(first?.keys() ?? []), ...(last?.keys() ?? [])])) {
    out[key] = {
      firstWindowP50: summarise(first?.get(key)?.ms ?? []).p50,
      lastWindowP50: summarise(last?.get(key)?.ms ?? []).p50,
    };
  }
  return out;
}
