import { randomUUID } from 'node:crypto';
import type { Producer } from 'kafkajs';
import { Counter, type Registry } from 'prom-client';
import type { TopicCodec } from '../shared/kafka/codec';
import type { TopicNames } from '../shared/kafka/topics';
import type { Logger } from '../shared/logger';
import type { IntakeRefusal } from '../shared/schemas';

const MAX_QUEUED = 10_000;
const MAX_PER_SEND = 500;
const FLUSH_EVERY_MS = 200;
const COUNTRY = /^[A-Z]{2}$/;
const MAX_TEXT = 200;

// What a refused request said about itself, for its report cell: only the routing fields.
export interface RefusalFacts {
  country_code?: unknown;
  source?: unknown;
}

// The refusal a fresh 409 duplicate or 422 validation_error answer reports. Pure: a country only
// when it is two capital letters, a source only when it is a string, both cut to size.
export function refusalOf(
  partnerId: string,
  status: IntakeRefusal['status'],
  reason: string,
  facts: RefusalFacts,
  at: Date,
  id: string = randomUUID(),
): IntakeRefusal {
  const refusal: IntakeRefusal = {
    refusal_id: id,
    partner_id: partnerId,
    status,
    reason: reason.slice(0, MAX_TEXT),
    at: at.toISOString(),
  };
  if (typeof facts.country_code === 'string' && COUNTRY.test(facts.country_code))
    refusal.country_code = facts.country_code;
  if (typeof facts.source === 'string' && facts.source !== '') refusal.source = facts.source.slice(0, MAX_TEXT);
  return refusal;
}

// Tells the reports about duplicates and validation errors (they make no lead, so no lead event
// counts them) on leads.intake.refusals. Fire and forget: the partner's answer never waits for it
// and never fails because of it. Refusals wait in a bounded queue and leave together FLUSH_EVERY_MS
// after the first of them (nothing is woken while none waits); a full queue or a failed send drops
// them, logged and counted (lead_intake_refusal_reports_dropped_total), so the reports may then
// count fewer.
export class RefusalReports {
  private queue: IntakeRefusal[] = [];
  private readonly dropped: Counter<'reason'>;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly d: {
      producer: Producer;
      codec: TopicCodec;
      topics: TopicNames;
      logger: Logger;
      metrics: Registry;
    },
  ) {
    this.dropped = new Counter({
      name: 'lead_intake_refusal_reports_dropped_total',
      help: 'Duplicate and validation_error answers not reported to the reports (queue_full, publish_failed)',
      labelNames: ['reason'],
      registers: [d.metrics],
    });
  }

  report(refusal: IntakeRefusal): void {
    if (this.queue.length >= MAX_QUEUED) {
      this.dropped.inc({ reason: 'queue_full' });
      return;
    }
    this.queue.push(refusal);
    // Nothing queued, nothing to wake for: the timer runs only once a refusal waits.
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, FLUSH_EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
  }

  private flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_PER_SEND);
        try {
          const messages = await Promise.all(
            batch.map(async (r) => ({ key: r.partner_id, value: await this.d.codec.encode('intakeRefusals', r) })),
          );
          await this.d.producer.sendBatch({ topicMessages: [{ topic: this.d.topics.intakeRefusals, messages }] });
        } catch (err) {
          this.dropped.inc({ reason: 'publish_failed' }, batch.length);
          this.d.logger.warn(
            { count: batch.length, err: (err as Error).message },
            'could not report refused intake requests to the reports',
          );
        }
      }
    });
    return this.flushing;
  }
}
