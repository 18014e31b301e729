import { randomBytes } from 'node:crypto';
import {
  buildCallbackPayload,
  classifyAttempt,
  partnerPostback,
  sendCallback,
  sendPostback,
  wireRules,
} from './delivery-wire';
import type { AttemptResult } from './retry-policy';
import type { PartnerDoc } from '../shared/mongo/documents';
import type { Config } from '../shared/config';
import type { PartnerDirectory } from '../shared/partners/partner-directory';
import { SAMPLE_LEAD_ID, sampleLeadEvent } from '../shared/postbacks/sample-event';
import type { CallbackPayload, LeadEvent } from '../shared/schemas';

export interface TestCallbackResult {
  delivered: boolean;
  http_status: number | null;
  duration_ms: number;
  error: string | null;
  response_body: string | null;
  url?: string; // a test postback's: the URL called, the token masked
}

// A lead.accepted exactly as a real one would be built for this partner (status mapping included).
export function testCallbackPayload(
  partner: Pick<PartnerDoc, '_id' | 'status_mapping'>,
  now: Date,
  externalId: string,
): CallbackPayload {
  return buildCallbackPayload(
    sampleLeadEvent(partner._id, 'lead.accepted', now, externalId),
    partner.status_mapping ?? {},
  );
}

export interface TestCallbackDeps {
  callbacks: Config['callbacks'];
  serviceName: string;
  partners: Pick<PartnerDirectory, 'byId' | 'callbackSigning' | 'postbackToken'>;
}

// Each test is an event of its own (X-Event-Id le-0:test-<hex>): a receiver that drops repeats by
// X-Event-Id still sees the next test.
const testTag = (): string => `test-${randomBytes(6).toString('hex')}`;

// A manager's test callback (a `test_callback` command to the endpoint's keeper): one attempt,
// signed with the partner's callback secret, under the same rules and code as real deliveries
// (timeout, SSRF guard, https); it is not queued and never retried. Null: the partner, or its
// callback_url, is gone since the manager asked.
export async function sendTestCallback(d: TestCallbackDeps, partnerId: string): Promise<TestCallbackResult | null> {
  const partner = await d.partners.byId(partnerId);
  if (!partner?.callback_url) return null;
  const tag = testTag();
  const result = await sendCallback({
    ...wireRules(d.callbacks),
    serviceName: d.serviceName,
    url: partner.callback_url,
    signing: d.partners.callbackSigning(partner),
    eventId: `${SAMPLE_LEAD_ID}:${tag}`,
    payload: testCallbackPayload(partner, new Date(), tag),
  });
  return testResult(result);
}

// A manager's test postback (`test_postback`): the partner's template for `event` filled for the
// sample lead and sent once, like the test callback. Null: no template for that event any more.
export async function sendTestPostback(
  d: TestCallbackDeps,
  partnerId: string,
  event: LeadEvent['event'],
): Promise<TestCallbackResult | null> {
  const partner = await d.partners.byId(partnerId);
  const postback =
    partner && partnerPostback(d.partners, partner, sampleLeadEvent(partner._id, event, new Date(), testTag()));
  if (!postback) return null;
  const result = await sendPostback({ ...postback, serviceName: d.serviceName, ...wireRules(d.callbacks) });
  return { ...testResult(result), url: result.url };
}

function testResult(result: AttemptResult): TestCallbackResult {
  return {
    delivered: classifyAttempt(result) === 'delivered',
    http_status: result.httpStatus,
    duration_ms: result.durationMs,
    error: result.error,
    response_body: result.responseBody,
  };
}
