import { Counter, Histogram, type Registry } from 'prom-client';
import { testLabel, type PartnerDoc } from '../shared/mongo/documents';
import type { OutcomeLabel } from './intake-result';
import type { Endpoint } from './rate-limit';

// Partner API metrics. Labels stay low-cardinality: endpoint, outcome and partner, never a lead.
export class IngressMetrics {
  private readonly requests: Counter<'endpoint' | 'outcome' | 'partner_id' | 'test'>;
  private readonly duration: Histogram<'endpoint'>;

  constructor(registry: Registry) {
    this.requests = new Counter({
      name: 'lead_intake_requests_total',
      help: 'Partner API requests by endpoint and outcome (test: a sandbox partner)',
      labelNames: ['endpoint', 'outcome', 'partner_id', 'test'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'lead_intake_request_duration_seconds',
      help: 'Partner API request duration, from the first byte to the answer',
      labelNames: ['endpoint'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
  }

  observe(
    endpoint: Endpoint,
    outcome: OutcomeLabel,
    partner: Pick<PartnerDoc, '_id' | 'mode'> | null,
    seconds: number,
  ): void {
    this.requests.inc({
      endpoint,
      outcome,
      partner_id: partner?._id ?? 'unknown',
      test: testLabel(partner?.mode === 'test'),
    });
    this.duration.observe({ endpoint }, seconds);
  }
}
