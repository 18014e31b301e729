// The callback on the wire, in one place: the payload built from a lead event, the signature, the
// send (https, SSRF guard, timeout, money guard) and the verdict on the answer. Real deliveries
// (delivery-attempt.ts) and a manager's test callback (test-callback.ts) both go through it.
export { buildCallbackPayload } from './callback-payload';
export { closeCallbackAgents, sendCallback, type SendCallbackOptions } from './callback-sender';
export { classifyAttempt, type AttemptVerdict } from '../retry-policy';
