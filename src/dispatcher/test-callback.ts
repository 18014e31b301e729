import { randomBytes } from 'node:crypto';
import { buildCallbackPayload, classifyAttempt, sendCallback } from './callback-wire';
import type { PartnerDoc } from '../shared/mongo/documents';
import type { Config } from '../shared/config';
import type { PartnerDirectory } from '../shared/partners/partner-directory';
import type { CallbackPayload } from '../shared/schemas';

// The fictitious lead of a test callback (spec 4.4): no real lead has number 0.
export const TEST_LEAD_ID = 'le-0';

export interface TestCallbackResult {
  delivered: boolean;
  http_status: number | null;
  duration_ms: number;
  error: string | null;
  response_body: string | null;
}

// A lead.accepted exactly as a real one would be built for this partner (status mapping included).
export function testCallbackPayload(partner: Pick<PartnerDoc, '_id' | 'status_mapping'>, now: Date, externalId: string): CallbackPayload {
  return buildCallbackPayload(
    {
      event_id: `${TEST_LEAD_ID}:test`,
      event: 'lead.accepted',
      lead_id: TEST_LEAD_ID,
      partner_id: partner._id,
      external_lead_id: externalId,
      our_status: 'new',
      is_depositor: false,
      occurred_at: now.toISOString(),
    },
    partner.status_mapping ?? {},
  );
}

export interface TestCallbackDeps {
  callbacks: Config['callbacks'];
  serviceName: string;
  partners: Pick<PartnerDirectory, 'byId' | 'callbackSigning'>;
}

// A manager's test callback (a `test_callback` command to the endpoint's keeper): one attempt,
// signed with the partner's callback secret, under the same rules and code as real deliveries
// (timeout, SSRF guard, https); it is not queued and never retried. Null: the partner, or its
// callback_url, is gone since the manager asked.
export async function sendTestCallback(d: TestCallbackDeps, partnerId: string): Promise<TestCallbackResult | null> {
  const partner = await d.partners.byId(partnerId);
  if (!partner?.callback_url) return null;
  const { callbacks } = d;
  // Each test callback is an event of its own (X-Event-Id le-0:test-<hex>): a partner that drops
  // repeats by X-Event-Id still sees the next test.
  const tag = `test-${randomBytes(6).toString('hex')}`;
  const payload = testCallbackPayload(partner, new Date(), tag);
  const result = await sendCallback({
    url: partner.callback_url,
    signing: d.partners.callbackSigning(partner),
    eventId: `${TEST_LEAD_ID}:${tag}`,
    serviceName: d.serviceName,
    payload,
    timeoutMs: callbacks.timeoutMs,
    allowPrivateNetworks: callbacks.allowPrivateNetworks,
    allowHttp: callbacks.allowHttp,
    responseBodyLimit: callbacks.responseBodyLimit,
  });
  return {
    delivered: classifyAttempt(result) === 'delivered',
    http_status: result.httpStatus,
    duration_ms: result.durationMs,
    error: result.error,
    response_body: result.responseBody,
  };
}
