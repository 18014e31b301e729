import type { Config } from '../shared/config';
import type { Logger } from '../shared/logger';
import { testLabel } from '../shared/mongo/documents';
import type { PartnerDirectory } from '../shared/partners/partner-directory';
import type { LeadEvent } from '../shared/schemas';
import {
  classifyAttempt,
  decideAfterAttempt,
  failedAttempt,
  type AttemptResult,
  type DeliveryCounters,
  type DeliveryDecision,
  type RetrySchedule,
} from './retry-policy';
import { buildCallbackPayload, partnerPostback, sendCallback, sendPostback, wireRules } from './delivery-wire';
import { endpointId, kindField, type DeliveryKind } from '../shared/delivery-kind';
import { published, type DeliveryTopics } from './delivery-topics';
import { probeHolds, type AttemptPermit } from './circuit-breaker';
import type { EndpointCircuits } from './endpoint-circuits';
import type { EndpointHealthTracker } from './endpoint-health-tracker';
import type { DeliveryOutcome, DispatcherMetrics } from './metrics';
import type { Clock } from '../shared/clock';
import { isRetriable } from '../shared/retriable';

export interface AttemptDeps {
  partners: PartnerDirectory;
  health: EndpointHealthTracker;
  circuits: Pick<EndpointCircuits, 'record'>;
  callbacks: Config['callbacks'];
  serviceName: string;
  schedule: RetrySchedule;
  topics: DeliveryTopics;
  metrics: DispatcherMetrics;
  logger: Logger;
  clock: Clock;
}

export interface Attempted {
  at: Date;
  result: AttemptResult;
  decision: DeliveryDecision;
}

// One HTTP attempt of one delivery (a callback or a postback) and what follows from it: the decision (delivered, queued for a
// retry tier, dead), metrics and a log line, and the task that carries it on (retry tier or dead topic).
export class DeliveryAttempts {
  constructor(private readonly deps: AttemptDeps) {}

  // `mayGo`: whether the lease on the attempt's work still holds, asked as its request is about to
  // be written (http-attempt.ts). Null: withheld, nothing sent; the caller's work is fenced, so it
  // records nothing and the next owner sends it. 'held': it went as its endpoint's probe (`permit`)
  // and failed as a down endpoint does: not counted, the caller holds it as its endpoint's others.
  async attempt(
    deliveryId: string,
    kind: DeliveryKind,
    event: LeadEvent,
    before: DeliveryCounters,
    mayGo: () => boolean,
    permit: AttemptPermit = 'attempt',
  ): Promise<Attempted | 'held' | null> {
    const { metrics, logger, schedule, clock } = this.deps;
    const at = clock.now();
    let onWire = false;
    // Asked again if undici sends a GET again on a fresh connection: counted on the wire once.
    const result = await this.sendGuarded(kind, event, () => {
      const go = mayGo();
      if (go && !onWire) metrics.requestsOnWire.inc();
      onWire ||= go;
      return go;
    }).finally(() => {
      if (onWire) metrics.requestsOnWire.dec();
    });
    if (result.failure?.kind === 'withheld') {
      metrics.attemptsWithheld.inc();
      logger.warn({ delivery_id: deliveryId, kind }, 'attempt withheld: the lease on its work ran out before it went');
      return null;
    }
    const verdict = classifyAttempt(result);
    const nowMs = clock.now().getTime();
    // A partner with no callback_url (or template) any more has no endpoint to judge.
    if (result.failure?.kind !== 'no_callback_url' && result.failure?.kind !== 'no_postback_url') {
      this.deps.health.record(endpointId(event.partner_id, kind), verdict, result.httpStatus, nowMs);
      this.deps.circuits.record(endpointId(event.partner_id, kind), verdict);
    }
    metrics.attemptSeconds.observe({ verdict }, result.durationMs / 1000);
    if (probeHolds(permit, verdict)) {
      logger.info({ delivery_id: deliveryId, kind, error: result.error }, 'probe failed: the delivery stays held');
      return 'held';
    }
    const decision = decideAfterAttempt(before, verdict, nowMs, schedule, result.retryAfterMs ?? null);
    metrics.deliveries.inc({
      event: event.event,
      outcome: outcomeOf(result, decision),
      partner_id: event.partner_id,
      test: testLabel(event.test),
    });
    const level = decision.state === 'delivered' ? 'debug' : decision.state === 'dead' ? 'warn' : 'info';
    logger[level](
      {
        delivery_id: deliveryId,
        event_id: event.event_id,
        kind,
        partner_id: event.partner_id,
        event: event.event,
        attempt: decision.attemptsMade,
        http_status: result.httpStatus,
        error: result.error,
        duration_ms: Math.round(result.durationMs),
        state: decision.state,
      },
      `${kind} attempt`,
    );
    return { at, result, decision };
  }

  // The retry task (the delivery's token from now on) or the dead task. Published before the record
  // is written: a crash in between replays the attempt, never strands the record without a task.
  // Given up once `wanted` says the attempt's work was handed over: its record will be refused, and
  // a task left to land later would be a second token of the delivery.
  async carryOn(
    deliveryId: string,
    kind: DeliveryKind,
    event: LeadEvent,
    { result, decision }: Attempted,
    wanted: () => boolean = () => true,
  ): Promise<void> {
    const { topics, metrics, logger } = this.deps;
    if (decision.state === 'delivered') return;
    const task = {
      delivery_id: deliveryId,
      event,
      last_error: result.error ?? `http_${result.httpStatus}`,
      ...kindField(kind),
    };
    if (decision.state === 'queued') {
      if (
        !(await published(
          logger,
          'retry task',
          () => topics.task(decision.tier, task, { dueAt: decision.nextAttemptAt, attempt: decision.attemptsMade + 1 }),
          wanted,
        ))
      )
        return;
      metrics.retries.inc({ tier: decision.tier.replace('retry', '') });
    } else {
      if (
        !(await published(
          logger,
          'dead task',
          () =>
            topics.task('callbacksDead', task, {
              dueAt: this.deps.clock.now().getTime(),
              attempt: decision.attemptsMade,
            }),
          wanted,
        ))
      )
        return;
      metrics.deadLetters.inc();
    }
  }

  // Whatever throws while the request is prepared or made is this attempt's failure, recorded like
  // any other: never an attempt that never settles, whose offset would hold its partition for good.
  // The log keeps the exception's name only: its message may echo the lead's data.
  private async sendGuarded(kind: DeliveryKind, event: LeadEvent, mayGo: () => boolean): Promise<AttemptResult> {
    const started = performance.now();
    try {
      return kind === 'postback' ? await this.sendPostback(event, mayGo) : await this.send(event, mayGo);
    } catch (err) {
      const error = err instanceof Error ? err.name : typeof err;
      const passing = isRetriable(err);
      this.deps.logger.error(
        { event_id: event.event_id, partner_id: event.partner_id, kind, error, passing },
        'preparing or making an attempt threw',
      );
      return failedAttempt(
        { kind: passing ? 'internal_unavailable' : 'unpreparable', error },
        performance.now() - started,
      );
    }
  }

  private async send(event: LeadEvent, mayGo: () => boolean): Promise<AttemptResult> {
    const { partners, callbacks } = this.deps;
    // Read now, not when the event came in: a manager may change the URL, mapping or secret at any time.
    const partner = await partners.byId(event.partner_id);
    if (!partner?.callback_url) return failedAttempt({ kind: 'no_callback_url' }, 0);
    return sendCallback({
      url: partner.callback_url,
      signing: partners.callbackSigning(partner),
      eventId: event.event_id,
      serviceName: this.deps.serviceName,
      payload: buildCallbackPayload(event, partner.status_mapping ?? {}),
      ...wireRules(callbacks),
      mayGo,
    });
  }

  private async sendPostback(event: LeadEvent, mayGo: () => boolean): Promise<AttemptResult> {
    const { partners, callbacks } = this.deps;
    const partner = await partners.byId(event.partner_id);
    const postback = partner && partnerPostback(partners, partner, event);
    if (!postback) return failedAttempt({ kind: 'no_postback_url' }, 0);
    return sendPostback({ ...postback, serviceName: this.deps.serviceName, ...wireRules(callbacks), mayGo });
  }
}

function outcomeOf(result: AttemptResult, decision: DeliveryDecision): DeliveryOutcome {
  const failure = result.failure;
  if (failure?.kind === 'payload_refused' && failure.reason === 'money_field') return 'refused_money';
  if (failure?.kind === 'address_refused') return 'refused_address';
  return decision.state === 'queued' ? 'retry_scheduled' : decision.state;
}
