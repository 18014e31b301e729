import { randomBytes } from 'node:crypto';
import type { Consumer } from 'kafkajs';
import type { IntakeDecisionDoc } from '../../src/shared/mongo/documents';
import type { Runtime } from '../../src/shared/runtime';
import type { IntakeCommand, IntakeDecision, IntakeReply } from '../../src/shared/schemas';
import { decisionId, IntakeDecisionStore } from '../../src/shared/store/intake-decisions';

export type Script = (cmd: IntakeCommand) => {
  outcome: IntakeDecision['outcome'];
  lead_id: string | null;
  reason: string | null;
  delayMs?: number;
};

// A stand-in for the processor on the real intake topics, for ingress tests that must control
// the decision and its timing. It keeps the processor's contract: one decision per (partner,
// Idempotency-Key), stored in intake_decisions, and a re-sent command answered with the stored
// decision and replay: true (or idempotency_mismatch for another body).
export class ScriptedProcessor {
  readonly commands: IntakeCommand[] = [];
  private consumer: Consumer | null = null;

  constructor(
    private readonly rt: Runtime,
    private readonly script: Script,
  ) {}

  async start(): Promise<this> {
    const consumer = this.rt.kafka.consumer({ groupId: `scripted-processor-${randomBytes(6).toString('hex')}` });
    const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
    await consumer.connect();
    await consumer.subscribe({ topic: this.rt.topics.intakeCommands, fromBeginning: true });
    await consumer.run({
      partitionsConsumedConcurrently: 6,
      eachMessage: async ({ message }) => {
        const cmd = await this.rt.codec.decode<IntakeCommand>('intakeCommands', message.value);
        this.commands.push(cmd);
        await this.answer(cmd); // in order per partition, as the processor decides
      },
    });
    await joined;
    this.consumer = consumer;
    return this;
  }

  commandsFor(idempotencyKey: string): IntakeCommand[] {
    return this.commands.filter((c) => c.idempotency_key === idempotencyKey);
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect();
  }

  private async answer(cmd: IntakeCommand): Promise<void> {
    const decisions = new IntakeDecisionStore(this.rt.mongo.db, this.rt.config.intake.idempotencyTtlS);
    const id = decisionId(cmd.partner_id, cmd.idempotency_key);
    const stored = await decisions.byId(id, new Date());
    let decision: IntakeDecision;
    if (stored) {
      decision =
        stored.body_hash === cmd.body_hash
          ? {
              outcome: stored.outcome,
              lead_id: stored.lead_id,
              reason: stored.reason,
              body_hash: stored.body_hash,
              replay: true,
            }
          : { outcome: 'idempotency_mismatch', lead_id: null, reason: null, body_hash: cmd.body_hash, replay: false };
    } else {
      const { delayMs = 0, ...decided } = this.script(cmd);
      await new Promise((r) => setTimeout(r, delayMs));
      decision = { ...decided, body_hash: cmd.body_hash, replay: false };
      const doc: IntakeDecisionDoc = { _id: id, partner_id: cmd.partner_id, ...decision, decided_at: new Date() };
      if (decision.outcome !== 'failed') await decisions.insertNew([doc], new Date()); // a failure stores nothing
    }
    const reply: IntakeReply = {
      correlation_id: cmd.correlation_id,
      reply_to: cmd.reply_to,
      partner_id: cmd.partner_id,
      idempotency_key: cmd.idempotency_key,
      decision,
    };
    await this.rt.producer.send({
      topic: this.rt.topics.intakeReplies,
      messages: [{ key: cmd.reply_to, value: await this.rt.codec.encode('intakeReplies', reply) }],
    });
  }
}
