import { buildCallbackPayload, closeWireAgents, sendCallback } from '../src/dispatcher/delivery-wire';
import { PiiCipher } from '../src/shared/crypto/pii-cipher';
import type { LeadEvent } from '../src/shared/schemas';
import { serveHelper } from './lib/roles';
import { r1, summarise } from './lib/stats';
import { randomBytes } from 'node:crypto';

// The dispatcher's HTTP path alone, in a process of its own: what one delivery attempt does once
// its record is leased (decrypt the partner's callback secret, build the payload, guard it,
// serialise once, sign, POST with the production undici agent and timeout, read the answer),
// with no MongoDB, Kafka or Redis. `concurrency` attempts in flight (CALLBACK_CONCURRENCY).
const cipher = new PiiCipher(new Map([['k1', randomBytes(32)]]), 'k1');

async function run(msg: Record<string, unknown>) {
  const urls = msg.urls as string[];
  const secrets = (msg.secrets as string[]).map((s) => cipher.encrypt(s));
  const seconds = Number(msg.seconds);
  const concurrency = Number(msg.concurrency);
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let n = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      const i = n++;
      const p = i % urls.length;
      const event: LeadEvent = {
        event_id: `le-${i}:0`,
        event: 'lead.accepted',
        lead_id: `le-${i}`,
        partner_id: `pa-${p}`,
        external_lead_id: `ext-${i}`,
        our_status: 'new',
        is_depositor: false,
        occurred_at: new Date().toISOString(),
      };
      const result = await sendCallback({
        url: urls[p] as string,
        signing: { scheme: 'spec', secrets: [cipher.decrypt(secrets[p] as string)] },
        eventId: event.event_id,
        serviceName: 'LeadIntake',
        payload: buildCallbackPayload(event, {}),
        timeoutMs: 10_000,
        allowPrivateNetworks: true,
        allowHttp: true,
        responseBodyLimit: 2048,
      });
      latencies.push(result.durationMs);
      const key = result.httpStatus === null ? (result.error ?? 'error') : String(result.httpStatus);
      statuses[key] = (statuses[key] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - start) / 1000;
  const ok = statuses['200'] ?? 0;
  return {
    attempts: latencies.length,
    ok,
    perS: r1(ok / elapsed),
    seconds: elapsed,
    statuses,
    latencyMs: summarise(latencies),
  };
}

serveHelper(
  (msg) => {
    if (msg.type === 'run') return run(msg);
    throw new Error(`unknown message ${String(msg.type)}`);
  },
  { onStop: closeWireAgents },
);
