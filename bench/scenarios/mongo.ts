import { randomUUID } from 'node:crypto';
import { DeliveryStore, newDeliveryDoc } from '../../src/dispatcher/delivery-store';
import { RecordBatcher } from '../../src/dispatcher/lead-owner/lead-writes';
import { decideAfterAttempt, retrySchedule } from '../../src/dispatcher/retry-policy';
import { newIntakeKey } from '../../src/ingress/data-key-stock';
import { sealLead } from '../../src/ingress/seal-lead';
import type { IntakeKeyDoc } from '../../src/shared/mongo/documents';
import { IntakeKeyStore } from '../../src/shared/store/intake-keys';
import { PartnerKeys } from '../../src/shared/partners/partner-keys';
import type { KafkaMessage } from 'kafkajs';
import { Counter } from 'prom-client';
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
import type { BenchContext, ScenarioResult } from '../lib/context';
import { scenarioEnv } from '../lib/env';
import { CpuMeter } from '../lib/proc';
import { dropScenario } from '../lib/setup';
import { MongoCommandLog } from '../lib/mongo-command-log';
import { pattern, type PatternResult } from '../lib/mongo-pattern';
import { mongoTables } from '../lib/mongo-tables';
import { ListIndex } from '../../src/shared/store/list-index';
import { AgentService } from '../../src/manager/agent-service';
import { partnerService } from '../../src/manager/services';

// The MongoDB-wire server alone, under the processor's and the dispatcher's exact access pattern:
// the real IntakeBatch and Lifecycle (chunks of CHUNK commands, as their consumers hand them over)
// and the real DeliveryStore run here against MONGO_URL, with Kafka left out. Every command the
// driver sends is timed (command monitoring), so the table shows what one lead costs in database
// round trips and how long each kind takes, and how that changes as collections grow.
const CHUNK = 100;

export async function mongoScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const { opts } = ctx;
  const { env } = scenarioEnv('mongo', 'warn', { ...opts.roleEnv, ROLE: 'processor' });
  const config = loadConfig(env);
  const mongo = await connectMongo(config);
  await ensureIndexes(mongo.collections);
  // Listening only from here on: the index creation above is not part of any pattern.
  const log = new MongoCommandLog();
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
    // No processor listens here: the roster below reads the agents once they are made.
    const agents = new AgentService(
      rt.mongo.collections.agents,
      rt.mongo.collections.agentActivity,
      async () => undefined,
    );
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
      const { doc: key, key: issued } = newIntakeKey(cipher, new Date());
      const { record: lead } = sealLead(
        {
          external_id: `ext-${i}`,
          ip: '203.0.113.7',
          country_code: 'DE',
          language: 'de',
          source: 'benchmark',
          phone,
          email,
        },
        issued,
        config.crypto.hashKey,
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
      await intakeKeys.putAll(made.map(({ key }) => key)); // the ingress's work, not timed here
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
    const unrecorded = new Counter({ name: 'bench_attempts_unrecorded_total', help: 'unused', registers: [] });
    const batcher = new RecordBatcher(store, rt.logger, { attemptsUnrecorded: unrecorded });
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

  const tables = mongoTables(config.mongo.url, CHUNK, {
    processor: results.processor as PatternResult,
    lifecycle: results.lifecycle as PatternResult,
    dispatcher: results.dispatcher as PatternResult,
  });
  return {
    name: 'mongo',
    title: 'MongoDB-wire access pattern',
    tables,
    data: { mongoUrl: config.mongo.url, ...results },
    notes,
  };
}
