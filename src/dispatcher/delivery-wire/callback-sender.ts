import { describeErrors, validatorFor, type CallbackPayload } from '../../shared/schemas';
import { failedAttempt, type AttemptFailure, type AttemptResult } from '../retry-policy';
import { signatureHeaders, type CallbackSigning } from '../../shared/crypto/callback-signature';
import { findMoneyField } from './money-guard';
import { attemptRequest, type WireRules } from './http-attempt';

export type { AttemptResult } from '../retry-policy';

export interface SendCallbackOptions extends WireRules {
  url: string;
  signing: CallbackSigning;
  eventId: string; // X-Event-Id: the same on every attempt, so a partner can drop repeats
  serviceName: string;
  payload: CallbackPayload;
}

// One signed POST to a partner (spec 5.3 and 6), once the payload passed its guards. Never throws.
export async function sendCallback(opts: SendCallbackOptions): Promise<AttemptResult> {
  const refusal = payloadRefusal(opts.payload);
  if (refusal) return failedAttempt(refusal, 0);
  return sendSigned({ ...opts, event: opts.payload.event, body: opts.payload });
}

export interface SendSignedOptions extends WireRules {
  url: string;
  signing: CallbackSigning;
  eventId: string;
  serviceName: string;
  event: string; // X-Event
  body: object;
}

// A signed JSON POST: the body is serialised once and those exact bytes are signed and sent, under
// the rules of http-attempt.ts. Never throws.
export async function sendSigned(opts: SendSignedOptions): Promise<AttemptResult> {
  const now = opts.now ?? Date.now;
  const body = Buffer.from(JSON.stringify(opts.body), 'utf8');
  const headers = {
    'content-type': 'application/json',
    'user-agent': `${opts.serviceName}-Webhook/1.0`,
    'x-event': opts.event,
    'x-event-id': opts.eventId,
    ...signatureHeaders(opts.signing, opts.eventId, body, Math.floor(now() / 1000)),
  };
  return attemptRequest({ ...opts, method: 'POST', headers, body });
}

// Money guard first (it names the field), then the schema of spec 2.4.
function payloadRefusal(payload: CallbackPayload): AttemptFailure | null {
  const moneyField = findMoneyField(payload);
  if (moneyField) return { kind: 'payload_refused', reason: 'money_field', detail: moneyField };
  const validate = validatorFor<CallbackPayload>('callback-payload.json');
  if (!validate(payload)) return { kind: 'payload_refused', reason: 'schema', detail: describeErrors(validate.errors) };
  return null;
}
