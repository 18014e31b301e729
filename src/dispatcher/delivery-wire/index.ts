// Callbacks and postbacks on the wire, in one place: the payload built from a lead event, the
// signature, the send (https, SSRF guard, timeout, money guard) and the verdict on the answer. Real
// deliveries (delivery-attempt.ts) and a manager's tests (test-callback.ts) all go through it.
export { buildCallbackPayload } from './callback-payload';
export { sendCallback, sendSigned, type SendCallbackOptions, type SendSignedOptions } from './callback-sender';
export { partnerPostback, sendPostback, POSTBACK_SIGNATURE_HEADER, type SendPostbackOptions } from './postback-sender';
export { closeWireAgents, wireRules } from './http-attempt';
export { classifyAttempt, type AttemptVerdict } from '../retry-policy';
