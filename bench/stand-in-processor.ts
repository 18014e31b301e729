import { LeadOpener, type DedupHashes } from '../src/processor/lead-opener';
import { loadConfig } from '../src/shared/config';
import { createLogger } from '../src/shared/logger';
import { startRuntime, type Runtime } from '../src/shared/runtime';
import type { IntakeCommand, IntakeDecision, IntakeReply } from '../src/shared/schemas';
import { IntakeKeyStore } from '../src/shared/store/intake-keys';
import { serveHelper } from './lib/roles';
import { summarise } from './lib/stats';

// A stand-in for the processor that decides without the database: it reads intake commands from the
// real topic and answers on the real reply topic, deciding in memory (one decision per (partner,
// Idempotency-Key) replayed on a re-send; the same phone or email hash again is a duplicate). It
// measures the ingress and the Kafka round trip alone. Per fetched batch it reads the commands' data
// keys in one look-up (the hashes are derived from what they open, as the processor does), and its
// replies leave in one produce.
let rt: Runtime | null = null;
const decisions = new Map<string, IntakeDecision>();
const claims = new Map<string, string>();
let nextLead = 1;
let answered = 0;
// How long after the ingress received the request its command reached the stand-in (ms).
let commandDelays: number[] = [];

function decide(cmd: IntakeCommand, { phone_hash, email_hash }: DedupHashes): IntakeDecision {
  const id = `${cmd.partner_id}:${cmd.idempotency_key}`;
  const stored = decisions.get(id);
  if (stored) {
    return stored.body_hash === cmd.body_hash
      ? { ...stored, replay: true }
      : { outcome: 'idempotency_mismatch', lead_id: null, reason: null, body_hash: cmd.body_hash, replay: false };
  }
  const keys = [`phone:${phone_hash}`, ...(email_hash ? [`email:${email_hash}`] : [])];
  const existing = keys.map((k) => claims.get(k)).find((v) => v !== undefined);
  let decision: IntakeDecision;
  if (existing) {
    decision = {
      outcome: 'duplicate',
      lead_id: existing,
      reason: `matched_lead:${existing.slice(3)}`,
      body_hash: cmd.body_hash,
      replay: false,
    };
  } else {
    const lead = `le-${nextLead++}`;
    for (const k of keys) claims.set(k, lead);
    decision = { outcome: 'accepted', lead_id: lead, reason: null, body_hash: cmd.body_hash, replay: false };
  }
  decisions.set(id, decision);
  return decision;
}

async function start(): Promise<void> {
  const config = loadConfig({ ...process.env, ROLE: 'processor' });
  rt = await startRuntime(config, createLogger(config.logLevel));
  const runtime = rt;
  const opener = new LeadOpener(runtime.cipher, config.crypto.hashKey);
  const intakeKeys = new IntakeKeyStore(runtime.mongo.db);
  const consumer = runtime.kafka.consumer({
    groupId: `${config.kafka.topicPrefix}bench-stand-in`,
    maxWaitTimeInMs: 100,
  });
  const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
  await consumer.connect();
  await consumer.subscribe({ topic: runtime.topics.intakeCommands, fromBeginning: true });
  await consumer.run({
    partitionsConsumedConcurrently: 6,
    eachBatch: async ({ batch }) => {
      const messages = [];
      const cmds = await Promise.all(
        batch.messages.map((m) => runtime.codec.decode<IntakeCommand>('intakeCommands', m.value)),
      );
      const keys = await intakeKeys.byRefs(cmds.flatMap((c) => (c.lead.key_ref ? [c.lead.key_ref] : [])));
      for (const cmd of cmds) {
        commandDelays.push(Date.now() - Date.parse(cmd.received_at));
        const dek = keys.get(cmd.lead.key_ref ?? '') ?? cmd.lead.dek_enc;
        const reply: IntakeReply = {
          correlation_id: cmd.correlation_id,
          reply_to: cmd.reply_to,
          partner_id: cmd.partner_id,
          idempotency_key: cmd.idempotency_key,
          decision: decide(cmd, opener.hashes({ ...cmd, lead: { ...cmd.lead, dek_enc: dek } })),
        };
        messages.push({ key: cmd.reply_to, value: await runtime.codec.encode('intakeReplies', reply) });
      }
      if (messages.length > 0) await runtime.producer.send({ topic: runtime.topics.intakeReplies, messages });
      answered += messages.length;
    },
  });
  await joined;
}

serveHelper(
  (msg) => {
    if (msg.type === 'stats') {
      const delays = commandDelays;
      if (msg.reset) commandDelays = [];
      return { answered, leads: nextLead - 1, commandDelayMs: summarise(delays) };
    }
    throw new Error(`unknown message ${String(msg.type)}`);
  },
  {
    ready: start(),
    onStop: async () => {
      await rt?.close();
    },
  },
);
