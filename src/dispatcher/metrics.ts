import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { CircuitCounts } from './endpoint-circuits';

// Outcome of one lead event for one partner at one step: skipped (no URL, not whitelisted), held
// (behind an earlier delivery of its lead on the retry path), or the result of an attempt. An
// attempt refused by a guard counts as refused_* only.
export type DeliveryOutcome =
  'delivered' | 'retry_scheduled' | 'dead' | 'skipped' | 'held' | 'refused_money' | 'refused_address';

export interface DispatcherMetrics {
  deliveries: Counter<'event' | 'outcome' | 'partner_id' | 'test'>;
  attemptSeconds: Histogram<'verdict'>;
  retries: Counter<'tier'>;
  deadLetters: Counter<string>;
  retryLateness: Histogram<'path'>;
  undecodable: Counter<'topic'>;
  endpointPauses: Counter<'partner_id'>;
  endpointConsecutiveFailures: Gauge<'partner_id'>;
  endpointLastSuccess: Gauge<'partner_id'>;
  requestsOnWire: Gauge<string>;
  attemptsWithheld: Counter<string>;
  attemptsUnrecorded: Counter<string>;
  recordWaits: Counter<'reason'>;
}

// Kept in memory by the dispatcher: nothing here reads MongoDB on a scrape.
export interface DispatcherGauges {
  blockedLeads(): number;
  endpointBacklogs(): number;
  pausedEndpoints(): number;
  circuits(): CircuitCounts;
}

export function dispatcherMetrics(registry: Registry, gauges: DispatcherGauges): DispatcherMetrics {
  const { blockedLeads, pausedEndpoints } = gauges;
  new Gauge({
    name: 'lead_intake_callback_endpoint_circuits',
    help: 'Partner endpoints whose circuit is not closed on this dispatcher, by state (open: held, no attempt; probe_due: the next attempt probes; probing: the probe is under way)',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      for (const [state, n] of Object.entries(gauges.circuits())) this.set({ state }, n);
    },
  });
  new Gauge({
    name: 'lead_intake_callback_endpoints_paused',
    help: 'Partner endpoints paused after sustained failure, as this dispatcher knows them (their callbacks are held)',
    registers: [registry],
    collect() {
      this.set(pausedEndpoints());
    },
  });
  new Gauge({
    name: 'lead_intake_callback_blocked_leads',
    help: "Leads whose later callbacks wait behind one of their deliveries on the retry path (this instance's partitions)",
    registers: [registry],
    collect() {
      this.set(blockedLeads());
    },
  });
  new Gauge({
    name: 'lead_intake_callback_endpoint_backlogs',
    help: "Endpoint backlogs on this instance's partitions: an endpoint's events set aside on a partition (its circuit open or its queue full), read back from Kafka at its pace",
    registers: [registry],
    collect() {
      this.set(gauges.endpointBacklogs());
    },
  });
  return {
    deliveries: new Counter({
      name: 'lead_intake_callback_deliveries_total',
      help: "Callback attempts, holds and skips by event, outcome (delivered, retry_scheduled, dead, skipped, held, refused_money, refused_address), partner and test (a sandbox partner's lead)",
      labelNames: ['event', 'outcome', 'partner_id', 'test'],
      registers: [registry],
    }),
    attemptSeconds: new Histogram({
      name: 'lead_intake_callback_attempt_duration_seconds',
      help: 'Duration of one callback HTTP attempt, by verdict (delivered, retriable, permanent, unsendable)',
      labelNames: ['verdict'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    retries: new Counter({
      name: 'lead_intake_callback_retries_total',
      help: 'Retries scheduled, by tier topic (1 to 4)',
      labelNames: ['tier'],
      registers: [registry],
    }),
    deadLetters: new Counter({
      name: 'lead_intake_callback_dead_letters_total',
      help: 'Deliveries that used up their attempts and went to the dead topic',
      registers: [registry],
    }),
    retryLateness: new Histogram({
      name: 'lead_intake_callback_retry_lateness_seconds',
      help: 'How long after its due time a retry attempt started, by path (topic: the retry topics)',
      labelNames: ['path'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    endpointPauses: new Counter({
      name: 'lead_intake_callback_endpoint_pauses_total',
      help: 'Endpoints paused after sustained failure, by partner (counted by the dispatcher that keeps the endpoint)',
      labelNames: ['partner_id'],
      registers: [registry],
    }),
    endpointConsecutiveFailures: new Gauge({
      name: 'lead_intake_callback_endpoint_consecutive_failures',
      help: "Failed callback attempts in a row to a partner's endpoint, over every dispatcher (set by the dispatcher that keeps the endpoint)",
      labelNames: ['partner_id'],
      registers: [registry],
    }),
    endpointLastSuccess: new Gauge({
      name: 'lead_intake_callback_endpoint_last_success_timestamp_seconds',
      help: "When a callback to a partner's endpoint last succeeded, Unix seconds (set by the dispatcher that keeps the endpoint)",
      labelNames: ['partner_id'],
      registers: [registry],
    }),
    requestsOnWire: new Gauge({
      name: 'lead_intake_callback_requests_on_wire',
      help: 'Callback and postback requests this dispatcher has sent and not yet had an answer (or a failure) for',
      registers: [registry],
    }),
    attemptsWithheld: new Counter({
      name: 'lead_intake_callback_attempts_withheld_total',
      help: "Attempts not sent because this dispatcher's lease on their work ran out before their request went (the next owner sends them)",
      registers: [registry],
    }),
    attemptsUnrecorded: new Counter({
      name: 'lead_intake_callback_attempts_unrecorded_total',
      help: 'Attempts sent whose outcome this dispatcher could not record: its lease on their work ran out, it was handed over, or another owner recorded the same attempt first (each was sent twice)',
      registers: [registry],
    }),
    recordWaits: new Counter({
      name: 'lead_intake_callback_record_waits_total',
      help: "Due retry tasks that found their record behind and waited for its write, by reason (missing: not written yet; earlier_attempt: the attempt before the task's not recorded yet)",
      labelNames: ['reason'],
      registers: [registry],
    }),
    undecodable: new Counter({
      name: 'lead_intake_callback_undecodable_messages_total',
      help: 'Messages the dispatcher could not decode and skipped, by topic',
      labelNames: ['topic'],
      registers: [registry],
    }),
  };
}
