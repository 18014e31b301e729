import { randomUUID } from 'node:crypto';
import { lookupHash, sha256Hex } from '../../src/shared/crypto/lookup-hash';
import type { TopicKey } from '../../src/shared/kafka/topics';
import type { Runtime } from '../../src/shared/runtime';
import type { IntakeCommand, LeadRecord } from '../../src/shared/schemas';

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
// processor directly through its real topic.
export function intakeCommand(rt: Runtime, partnerId: string, input: LeadInput, idempotencyKey: string = randomUUID()): IntakeCommand {
  const lead: LeadRecord = {
    external_id: input.external_id ?? idempotencyKey,
    phone_enc: rt.cipher.encrypt(input.phone),
    phone_hash: lookupHash(rt.config.crypto.hashKey, 'phone', input.phone),
    ip: input.ip ?? '203.0.113.10',
  };
  if (input.email) {
    lead.email_enc = rt.cipher.encrypt(input.email);
    lead.email_hash = lookupHash(rt.config.crypto.hashKey, 'email', input.email);
  }
  if (input.country_code) lead.country_code = input.country_code;
  if (input.source) lead.source = input.source;
  if (input.language) lead.language = input.language;
  return {
    correlation_id: randomUUID(),
    reply_to: 'test-runner',
    partner_id: partnerId,
    idempotency_key: idempotencyKey,
    body_hash: sha256Hex(JSON.stringify(input)),
    received_at: new Date().toISOString(),
    lead,
  };
}

export async function produce(rt: Runtime, topic: TopicKey, values: object[], key: (v: object, i: number) => string = (_v, i) => String(i)): Promise<void> {
  const messages = await Promise.all(values.map(async (v, i) => ({ key: key(v, i), value: await rt.codec.encode(topic, v) })));
  await rt.producer.send({ topic: rt.topics[topic], messages });
}
