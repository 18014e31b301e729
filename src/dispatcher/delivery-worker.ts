import type { Logger } from '../shared/logger';
import type { DeliveryDoc } from '../shared/mongo/documents';
import type { Runtime } from '../shared/runtime';
import type { DeliveryTask } from '../shared/schemas';
import { attemptError, attemptErrorKind, type AttemptResult } from './attempt-result';
import { buildCallbackPayload } from './callback-payload';
import { sendCallback } from './callback-sender';
import { classifyAttempt, decideAfterAttempt, type DeliveryDecision } from './delivery-outcome';
import type { DeliveryJob } from './delivery-scheduler';
import { leaseEnd, type DeliveryStore, type Lease } from './delivery-store';
import { publishTask } from './delivery-task';
import type { DeliveryOutcome, DispatcherMetrics } from './metrics';
import type { RetrySchedule } from './retry-schedule';

// How much of its margin a creator's lease may have used up and still serve the first attempt.
const LEASE_SLACK_MS = 2000;

export interface WorkerDeps {
  rt: Runtime;
  store: DeliveryStore;
  schedule: RetrySchedule;
  metrics: DispatcherMetrics;
  logger: Logger;
}

// One attempt of one delivery: hold the lease, read the partner's current settings, send, record
// the attempt, then hand the delivery to its retry topic or the dead topic. Nothing happens without
// the lease, so a stale or repeated job is a no-op.
export function deliveryWorker(deps: WorkerDeps): (job: DeliveryJob) => Promise<void> {
  const { rt, store, schedule, metrics, logger } = deps;
  const cfg = rt.config.callbacks;

  return async (job) => {
    const now = new Date();
    const lease = await leaseFor(store, job, now, cfg.timeoutMs);
    if (!lease) return;
    const doc = lease.doc;
    if (job.source !== 'event' && doc.next_attempt_at) {
      // Measured once the lease is held, i.e. when the HTTP attempt really starts.
      metrics.retryLateness.observe({ path: job.source === 'sweep' ? 'sweep' : 'topic' }, (Date.now() - doc.next_attempt_at.getTime()) / 1000);
    }

    const result = await attempt(deps, doc);
    const verdict = classifyAttempt(result);
    const decision = decideAfterAttempt({ attemptsMade: doc.attempts_made, attemptsLeft: doc.attempts_left }, verdict, Date.now(), schedule);
    metrics.attemptSeconds.observe({ verdict }, result.durationMs / 1000);

    if (!(await store.recordAttempt(doc._id, lease.until, now, result, decision))) {
      logger.warn({ delivery_id: doc._id }, 'lease lost before the attempt was recorded; the next holder decides');
      return;
    }
    metrics.deliveries.inc({ event: doc.event_name, outcome: outcomeOf(result, decision), partner_id: doc.partner_id });
    const level = decision.state === 'delivered' ? 'debug' : decision.state === 'dead' ? 'warn' : 'info';
    logger[level]({
      delivery_id: doc._id, partner_id: doc.partner_id, event: doc.event_name, attempt: decision.attemptsMade,
      http_status: result.httpStatus, error: result.error, duration_ms: Math.round(result.durationMs), state: decision.state,
    }, 'callback attempt');
    await followUp(deps, doc, result, decision);
  };
}

// The lease for this attempt: the creator's, if it still covers a whole attempt; otherwise taken
// (or renewed) in MongoDB. Null when someone else holds the delivery or it is not due.
async function leaseFor(store: DeliveryStore, job: DeliveryJob, now: Date, timeoutMs: number): Promise<Lease | null> {
  const until = leaseEnd(now, timeoutMs);
  if (job.lease && job.lease.until.getTime() >= until.getTime() - LEASE_SLACK_MS) return job.lease;
  const doc = await store.takeLease(job.deliveryId, now, until, job.lease?.until);
  return doc ? { doc, until } : null;
}

async function attempt(deps: WorkerDeps, doc: DeliveryDoc): Promise<AttemptResult> {
  const { rt } = deps;
  const cfg = rt.config.callbacks;
  // Read now, not when the event came in: a manager may change the URL, mapping or secret at any time.
  const partner = await rt.partners.byId(doc.partner_id);
  if (!partner?.callback_url) return { httpStatus: null, error: attemptError('no_callback_url'), responseBody: null, durationMs: 0 };
  return sendCallback({
    url: partner.callback_url,
    secret: rt.partners.callbackSecret(partner),
    serviceName: rt.config.serviceName,
    payload: buildCallbackPayload(doc.event, partner.status_mapping ?? {}),
    timeoutMs: cfg.timeoutMs,
    allowPrivateNetworks: cfg.allowPrivateNetworks,
    allowHttp: cfg.allowHttp,
    responseBodyLimit: cfg.responseBodyLimit,
  });
}

function outcomeOf(result: AttemptResult, decision: DeliveryDecision): DeliveryOutcome {
  if (result.error?.startsWith(attemptError('payload_refused', 'money_field'))) return 'refused_money';
  if (result.error && attemptErrorKind(result.error) === 'address_refused') return 'refused_address';
  return decision.state === 'queued' ? 'retry_scheduled' : decision.state;
}

// After the record is written: a failed produce is only logged, because the record (queued with
// its next_attempt_at, or dead) is the truth and the sweeper picks up a retry that never arrives.
async function followUp(deps: WorkerDeps, doc: DeliveryDoc, result: AttemptResult, decision: DeliveryDecision): Promise<void> {
  const { rt, metrics, logger } = deps;
  if (decision.state === 'delivered') return;
  const task: DeliveryTask = { delivery_id: doc._id, event: doc.event, last_error: result.error ?? `http_${result.httpStatus}` };
  try {
    if (decision.state === 'queued') {
      await publishTask(rt, decision.tier, task, { dueAt: decision.nextAttemptAt, attempt: decision.attemptsMade + 1 });
      metrics.retries.inc({ tier: decision.tier.replace('retry', '') });
    } else {
      metrics.deadLetters.inc();
      await publishTask(rt, 'callbacksDead', task, { dueAt: Date.now(), attempt: decision.attemptsMade });
    }
  } catch (err) {
    logger.error({ delivery_id: doc._id, state: decision.state, err: (err as Error).message }, 'could not publish the delivery task');
  }
}
