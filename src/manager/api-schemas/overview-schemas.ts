import { dayTrendSchema } from '../reports/report-schemas';
import { answers, dateTime, int, object } from '../../shared/http/schema-parts';

// Route schema of the overview: the last hour per minute and the last 14 days per day.
const minuteBucket = object({
  start: dateTime,
  end: dateTime,
  counts: { type: 'object', additionalProperties: int, description: 'Count by outcome' },
});
const chart = object({
  metric: { type: 'string', description: 'The Prometheus counter it is read from' },
  minutes: { type: 'array', items: minuteBucket },
});

export const overviewSchemas = {
  overview: {
    tags: ['overview'],
    summary:
      'Intake requests and callbacks by outcome per minute over the last hour, every instance summed; and the last 14 days per day, from the reports',
    response: answers({
      200: object({ window_minutes: int, charts: object({ leads: chart, callbacks: chart }), days: dayTrendSchema }),
    }),
  },
} as const;
