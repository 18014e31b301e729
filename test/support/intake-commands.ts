import { randomUUID } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { newIntakeKey } from '../../src/ingress/data-key-stock';
import { sealLead } from '../../src/ingress/seal-lead';
import type { PiiCipher } from '../../src/shared/crypto/pii-cipher';
import { phoneBucket, requestBodyHash } from '../../src/shared/crypto/lookup-hash';
import { LeadOpener, type DedupHashes } from '../../src/processor/lead-opener';
import type { TopicKey } from '../../src/shared/kafka/topics';
import type { Runtime } from '../../src/shared/runtime';
import type { IntakeCommand, LeadRecord } from '../../src/shared/schemas';
import type { NormalisedLead } from '../../src/ingress/normalise-lead';
import type { IntakeKeyDoc } from '../../src/shared/mongo/documents';

// A lead sealed as the ingress seals it, with a data key of its own, and the document that stores the key.
export function sealedWithNewKey(
  lead: NormalisedLead,
  keyring: PiiCipher,
  hashKey: KeyObject,
  at: Date = new Date(),
): { record: LeadRecord; key: IntakeKeyDoc; bucket: string } {
  const { doc, key } = newIntakeKey(keyring, at);
  return { ...sealLead(lead, key, hashKey), key: doc };
}

export interface LeadInput {
  phone: string;
  email?: string;
  country_code?: string;
  source?: string;
  ip?: string;
  external_id?: string;
  language?: string;
}

// Builds intake commands as the ingress would (PII encrypted and hashed), for driving the
// processor directly through its real topic. The lead's data key travels in the command (dek_enc),
// as commands did before key_ref, so nothing needs storing first; the processor still opens such
// commands. Commands that refer to a stored key come from the HTTP intake.
export function intakeCommand(
  rt: Runtime,
  partnerId: string,
  input: LeadInput,
  idempotencyKey: string = randomUUID(),
): IntakeCommand {
  const { ip = '203.0.113.10', external_id = idempotencyKey, ...rest } = input;
  const lead = keyInline(sealedWithNewKey({ ...rest, ip, external_id }, rt.cipher, rt.config.crypto.hashKey));
  return {
    correlation_id: randomUUID(),
    reply_to: 'test-runner',
    partner_id: partnerId,
    idempotency_key: idempotencyKey,
    body_hash: requestBodyHash(rt.config.crypto.hashKey, Buffer.from(JSON.stringify(input))),
    received_at: new Date().toISOString(),
    lead,
  };
}

export function keyInline({ record, key }: { record: LeadRecord; key: IntakeKeyDoc }): LeadRecord {
  const { key_ref: _ref, ...lead } = record;
  return { ...lead, dek_enc: key.dek_enc };
}

// The dedup hashes the processor derives from a command built here (its key inline).
export function dedupHashes(rt: Runtime, cmd: IntakeCommand): DedupHashes {
  return new LeadOpener(rt.cipher, rt.config.crypto.hashKey).hashes(cmd);
}

// The key of an intake command built here, as the ingress keys it: its phone's bucket.
export const byPhone =
  (rt: Runtime) =>
  (cmd: object): string =>
    phoneBucket(dedupHashes(rt, cmd as IntakeCommand).phone_hash);

export async function produce(
  rt: Runtime,
  topic: TopicKey,
  values: object[],
  key: (v: object, i: number) => string = (_v, i) => String(i),
): Promise<void> {
  const messages = await Promise.all(
    values.map(async (v, i) => ({ key: key(v, i), value: await rt.codec.encode(topic, v) })),
  );
  await rt.producer.send({ topic: rt.topics[topic], messages });
}
