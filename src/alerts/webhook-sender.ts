import {
  classifyAttempt,
  decideAfterAttempt,
  retrySchedule,
  sendSigned,
  wireRules,
  type AttemptResult,
} from '../dispatcher/commands';
import type { Counter } from 'prom-client';
import type { Clock } from '../shared/clock';
import type { CallbackConfig } from '../shared/config';
import type { Logger } from '../shared/logger';
import type { PartnerDirectory } from '../shared/partners/partner-directory';
import { everyInterval, whenDue, type PeriodicTask } from '../shared/periodic-task';
import type { WebhookOutbox } from './webhook-outbox';
import type { WebhookDoc } from './webhook-state';

const BATCH = 20;

export interface WebhookSenderDeps {
  outbox: Pick<WebhookOutbox, 'urlOf' | 'claim' | 'settle' | 'due' | 'nextDue' | 'onQueued' | 'prune'>;
  posts: Counter<'outcome'>; // each attempt's outcome
  partners: PartnerDirectory; // how the partner's callbacks are signed
  callbacks: CallbackConfig; // their wire rules and retry schedule
  serviceName: string;
  pollMs: number; // the longest it waits, for posts queued by another process
  clock: Clock;
  logger: Logger;
}

// Posts the alerts queued for partners' webhooks: signed as the partner's callbacks are (the same
// secret and scheme, X-Event-Id the post's id on every attempt), tried under the same guards and
// timeout, and retried on the callbacks' schedule until delivered or dead. It tries as soon as a post
// is queued in this process and when the next one falls due (a retry, a claim left by a dead
// sender); at rest it reads the outbox once per pollMs.
export function startWebhookSender(d: WebhookSenderDeps): PeriodicTask {
  const schedule = retrySchedule(d.callbacks.retryDelaysS);
  // An attempt takes at most the callback timeout: nobody else takes the post meanwhile.
  const leaseMs = 4 * d.callbacks.timeoutMs;
  const attempt = async (doc: WebhookDoc): Promise<AttemptResult | null> => {
    const [partner, url] = await Promise.all([d.partners.byId(doc.partner_id), d.outbox.urlOf(doc.partner_id)]);
    if (!partner || partner.disabled || !url) return null;
    return sendSigned({
      url,
      signing: d.partners.callbackSigning(partner),
      eventId: doc._id,
      serviceName: d.serviceName,
      event: doc.event,
      body: doc.body,
      ...wireRules(d.callbacks),
    });
  };
  const one = async (doc: WebhookDoc): Promise<void> => {
    if (!(await d.outbox.claim(doc, leaseMs))) return;
    const result = await attempt(doc);
    const before = { attemptsMade: doc.attempts_made, attemptsLeft: doc.attempts_left };
    if (!result) {
      const gone = { state: 'dead' as const, attemptsMade: doc.attempts_made, attemptsLeft: 0 };
      d.posts.inc({ outcome: 'dead' });
      return d.outbox.settle(doc, gone, { httpStatus: null, error: 'no_webhook_url' });
    }
    const now = d.clock.now().getTime();
    const decision = decideAfterAttempt(before, classifyAttempt(result), now, schedule, result.retryAfterMs ?? null);
    const nextAt = decision.state === 'queued' ? new Date(decision.nextAttemptAt) : undefined;
    await d.outbox.settle(doc, { ...decision, nextAt }, result);
    d.posts.inc({ outcome: decision.state === 'queued' ? 'retry' : decision.state });
    const log = { post: doc._id, partner_id: doc.partner_id, state: decision.state, http_status: result.httpStatus };
    if (decision.state === 'delivered') d.logger.info(log, 'alert webhook delivered');
    else d.logger.warn({ ...log, error: result.error }, 'alert webhook not delivered');
  };
  const send = whenDue(
    'alert webhooks',
    d.pollMs,
    async () => {
      const due = await d.outbox.due(BATCH);
      for (const doc of due) await one(doc);
      return due.length === BATCH ? new Date() : d.outbox.nextDue();
    },
    d.logger,
  );
  d.outbox.onQueued(() => send.soon());
  const prune = everyInterval('alert webhooks prune', 3600 * 1000, () => d.outbox.prune(), d.logger);
  return {
    soon: () => send.soon(),
    async stop() {
      await Promise.all([send.stop(), prune.stop()]);
    },
  };
}
