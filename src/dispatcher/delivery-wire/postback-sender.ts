import { createHmac } from 'node:crypto';
import type { PartnerDoc } from '../../shared/mongo/documents';
import type { PartnerDirectory } from '../../shared/partners/partner-directory';
import { fillTemplate, postbackFor, postbackValues } from '../../shared/postbacks/postback-template';
import type { LeadEvent } from '../../shared/schemas';
import type { AttemptResult } from '../retry-policy';
import { attemptRequest, type WireRules } from './http-attempt';

export const POSTBACK_SIGNATURE_HEADER = 'x-postback-signature';

// What a partner's settings make of one event's postback.
export interface PartnerPostback {
  template: string;
  statusMapping: Readonly<Record<string, string>>;
  token: string | null;
  sign: boolean;
  event: LeadEvent;
}

export interface SendPostbackOptions extends WireRules, PartnerPostback {
  serviceName: string;
}

// The partner's postback for this event (template, mapping, token, signing), or null when none goes.
export function partnerPostback(
  partners: Pick<PartnerDirectory, 'postbackToken'>,
  partner: PartnerDoc,
  event: LeadEvent,
): PartnerPostback | null {
  const postback = postbackFor(partner.postbacks, partner.status_mapping, event.event);
  return (
    postback && { ...postback, token: partners.postbackToken(partner), sign: partner.postbacks?.sign === true, event }
  );
}

// One postback: a GET of the partner's template filled with the event's macros, under the
// rules callbacks have (http-attempt.ts). With `sign`, X-Postback-Signature carries the HMAC-SHA256 of
// the final URL keyed with the token. The result carries the URL with the token masked, which is all
// that is ever recorded or shown of it. Never throws.
export async function sendPostback(opts: SendPostbackOptions): Promise<AttemptResult> {
  const { url, masked } = fillTemplate(opts.template, postbackValues(opts.event, opts.statusMapping, opts.token));
  const headers: Record<string, string> = {
    'user-agent': `${opts.serviceName}-Postback/1.0`,
    'x-event-id': opts.event.event_id,
  };
  if (opts.sign && opts.token)
    headers[POSTBACK_SIGNATURE_HEADER] = `sha256=${createHmac('sha256', opts.token).update(url).digest('hex')}`;
  return { ...(await attemptRequest({ ...opts, url, method: 'GET', headers })), url: masked };
}
