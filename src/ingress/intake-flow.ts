import { randomUUID } from 'node:crypto';
import { ApiError } from '../shared/errors';
import type { PartnerDoc } from '../shared/mongo/documents';
import type { KeyObject } from 'node:crypto';
import type { Producer } from 'kafkajs';
import type { TopicCodec } from '../shared/kafka/codec';
import type { TopicNames } from '../shared/kafka/topics';
import type { Logger } from '../shared/logger';
import { decisionId, type IntakeDecisionStore } from '../shared/store/intake-decisions';
import { within } from '../shared/within';
import { boundedRead } from '../shared/mongo/bounded-read';
import type { IntakeCommand, IntakeDecision, IntakeReply } from '../shared/schemas';
import { isValidIdempotencyKey, type IdempotencyStore, type IntakeClaim } from './idempotency';
import { readInboundLead } from './inbound-lead';
import { refusalOf, type RefusalFacts, type RefusalReports } from './refusal-reports';
import { asReplay, fromDecision, fromError, validationFailure, type StoredOutcome } from './intake-result';
import { normaliseLead } from './normalise-lead';
import type { ReplyWaiter } from '../shared/kafka/reply-waiter';
import type { DataKeyStock, IssuedKey } from './data-key-stock';
import { sealLead } from './seal-lead';
import { reason } from './validation-reasons';

export interface IntakeRequest {
  partner: PartnerDoc;
  idempotencyKey: string | undefined;
  raw: Buffer; // exactly the bytes whose signature was checked
  claim: IntakeClaim | null; // taken with the request's admission (partner-api.ts)
  requestIp: string;
  receivedAtMs: number;
}

interface Final {
  stored: StoredOutcome;
  replay: boolean;
  facts?: RefusalFacts; // the request's country and source, for the reports
}

export interface IntakeFlowDeps {
  hashKey: KeyObject;
  codec: TopicCodec;
  producer: Producer;
  topics: Pick<TopicNames, 'intakeCommands'>;
  replyTimeoutMs: number;
  dataKeys: Pick<DataKeyStock, 'take'>;
  logger: Logger;
}

// One partner POST from its Idempotency-Key's claim to answer: parse, map, validate, normalise, seal, send
// the command to the processor and wait for its decision. Every final answer is stored under
// the Idempotency-Key; a retryable failure releases the key so the retry can take over at once.
export class IntakeFlow {
  constructor(
    private readonly d: IntakeFlowDeps,
    private readonly idempotency: IdempotencyStore,
    private readonly replies: ReplyWaiter<IntakeReply>,
    private readonly decisions: IntakeDecisionStore,
    private readonly refusals?: RefusalReports,
  ) {}

  async handle(req: IntakeRequest): Promise<StoredOutcome> {
    const { partner, idempotencyKey: key } = req;
    if (key === undefined)
      return this.reported(partner, { stored: validationFailure(reason.missing('idempotency_key')), replay: false })
        .stored;
    if (!isValidIdempotencyKey(key)) throw new ApiError('invalid_idempotency_key');

    if (req.claim?.key !== key)
      throw new Error('an intake request with an Idempotency-Key reached the flow without its claim');
    const { claim, bodyHash } = req.claim;
    switch (claim.kind) {
      case 'done':
        return asReplay(claim.stored);
      case 'mismatch':
        throw new ApiError('idempotency_key_reused');
      case 'in_use':
        throw new ApiError('idempotency_key_in_use', {}, { 'retry-after': '1' });
    }

    try {
      const known = claim.kind === 'taken_over' ? await this.storedDecision(partner._id, key, bodyHash) : null;
      const final = known ?? (await this.decide(req, key, bodyHash));
      await this.idempotency.complete(partner._id, key, final.stored);
      this.reported(partner, final);
      return final.replay ? asReplay(final.stored) : final.stored;
    } catch (err) {
      await this.idempotency
        .release(partner._id, key)
        .catch((e: unknown) => this.d.logger.warn({ err: e }, 'could not release an idempotency key'));
      throw err;
    }
  }

  // A fresh duplicate or validation_error answer is reported to the reports (never a replay: the
  // first answer was); queued, never awaited.
  private reported(partner: PartnerDoc, final: Final): Final {
    const body = final.stored.body as { status?: unknown; reason?: unknown };
    if (!this.refusals || final.replay || partner.mode === 'test') return final;
    if (body.status !== 'duplicate' && body.status !== 'validation_error') return final;
    this.refusals.report(refusalOf(partner._id, body.status, String(body.reason ?? ''), final.facts ?? {}, new Date()));
    return final;
  }

  // A taken-over key may already be decided (the first instance died after sending the command):
  // the processor's durable decision answers without another round trip (or a 503 within the reply
  // timeout when MongoDB does not answer).
  private async storedDecision(partnerId: string, key: string, bodyHash: string): Promise<Final | null> {
    const doc = await boundedRead(this.d.replyTimeoutMs, 'stored decision', (signal) =>
      this.decisions.byId(decisionId(partnerId, key), new Date(), signal),
    );
    if (!doc) return null;
    if (doc.body_hash !== bodyHash) return { stored: fromError(new ApiError('idempotency_key_reused')), replay: false };
    return { stored: fromDecision(doc), replay: true };
  }

  private async decide(req: IntakeRequest, key: string, bodyHash: string): Promise<Final> {
    let body: unknown;
    try {
      body = JSON.parse(req.raw.toString('utf8'));
    } catch {
      return { stored: fromError(new ApiError('malformed_json')), replay: false };
    }
    const read = readInboundLead(body, req.partner.field_mapping ?? {});
    // A body that failed validation gives the reports its country at most: its source could be
    // anything, and every distinct source is a report cell.
    if (!read.ok)
      return {
        stored: validationFailure(read.reason),
        replay: false,
        facts: { country_code: asFacts(body).country_code },
      };
    const normalised = normaliseLead(read.lead, { idempotencyKey: key, requestIp: req.requestIp });
    if (!normalised.ok)
      return { stored: validationFailure(normalised.reason), replay: false, facts: asFacts(read.lead) };

    const dataKey = await this.dataKey(new Date(req.receivedAtMs));
    const sealed = sealLead(normalised.lead, dataKey, this.d.hashKey);
    const decision = await this.ask(sealed.bucket, {
      correlation_id: randomUUID(),
      reply_to: this.replies.instanceId,
      partner_id: req.partner._id,
      idempotency_key: key,
      body_hash: bodyHash,
      received_at: new Date(req.receivedAtMs).toISOString(),
      lead: sealed.record,
    });
    return {
      stored: fromDecision(decision, Date.now() - req.receivedAtMs),
      replay: decision.replay,
      facts: normalised.lead,
    };
  }

  // The lead's data key, stored before it is issued (data-key-stock.ts); a MongoDB that does not
  // take a fill of the stock within the reply timeout gets the partner a retryable 503 (keys stored
  // late seal nothing, and are dropped with their hour).
  private async dataKey(receivedAt: Date): Promise<IssuedKey> {
    try {
      return await within(
        this.d.dataKeys.take(receivedAt),
        this.d.replyTimeoutMs,
        `the lead's data key was not stored within ${this.d.replyTimeoutMs} ms`,
      );
    } catch (err) {
      this.d.logger.error({ err: (err as Error).message }, "could not store a lead's data key");
      throw new ApiError('service_unavailable', {}, { 'retry-after': '1' });
    }
  }

  // Request/reply over Kafka: the command is keyed by its phone's bucket, so commands about one
  // phone are decided in order by one processor partition.
  private async ask(bucket: string, cmd: IntakeCommand): Promise<IntakeDecision> {
    const log = { correlation_id: cmd.correlation_id, partner_id: cmd.partner_id };
    const value = await this.d.codec.encode('intakeCommands', cmd);
    const timeoutMs = this.d.replyTimeoutMs;
    const pending = this.replies.expect(cmd.correlation_id, timeoutMs);
    try {
      // kafkajs keeps retrying a send for up to two minutes while the broker is away; the partner
      // gets its retryable 503 within the reply timeout instead. An abandoned send may still land
      // later, which is safe: the processor answers the retry's command with the decision it made
      // for this one.
      const send = this.d.producer.send({
        topic: this.d.topics.intakeCommands,
        messages: [{ key: bucket, value }],
      });
      await within(send, timeoutMs, `the intake command was not published within ${timeoutMs} ms`);
    } catch (err) {
      pending.cancel();
      this.d.logger.error({ ...log, err }, 'could not publish an intake command');
      throw new ApiError('service_unavailable', {}, { 'retry-after': '1' });
    }
    const decision = (await pending.reply)?.decision;
    if (!decision) {
      this.d.logger.warn(log, 'no intake decision within the reply timeout');
      throw new ApiError('decision_pending', {}, { 'retry-after': '1' });
    }
    return decision;
  }
}

function asFacts(value: unknown): RefusalFacts {
  return value !== null && typeof value === 'object' ? (value as RefusalFacts) : {};
}
