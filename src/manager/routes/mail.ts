import type { FastifyInstance } from 'fastify';
import type { MailOutbox } from '../../shared/mail/outbox';
import { TEMPLATE_NAMES } from '../../shared/mail/templates';
import { answers, dateTime, int, nullable, object, str } from '../../shared/http/schema-parts';

const mailItem = object({
  id: str,
  state: { enum: ['queued', 'sending', 'sent', 'dead'] },
  template: { enum: TEMPLATE_NAMES },
  to: str,
  attempts: int,
  last_error: nullable('string', {
    description: "The last try's failure: the SMTP error code and the relay's reply code",
  }),
  created_at: dateTime,
  next_at: nullable('string', { format: 'date-time' }),
});

const listMail = {
  tags: ['Mail'],
  summary: 'The outbox: mail waiting for a try (queued, sending) and mail given up (dead); never its content',
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: {
      state: { enum: ['waiting', 'dead', 'sent'], default: 'waiting', description: 'waiting: queued and sending' },
      limit: { type: 'integer', minimum: 1, maximum: 500, default: 100 },
    },
  },
  response: answers(
    { 200: object({ mail_enabled: { type: 'boolean' }, items: { type: 'array', items: mailItem } }) },
    422,
  ),
};

const STATES = { waiting: ['queued', 'sending'], dead: ['dead'], sent: ['sent'] } as const;

// What the outbox holds, for who keeps the accounts (the mail goes to them and their people).
export function mailRoutes(outbox: MailOutbox | null) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.get<{ Querystring: { state: keyof typeof STATES; limit: number } }>(
      '/api/mail',
      { schema: listMail, config: { access: 'accounts.read', audit: 'account.read' } },
      async (req) => ({
        mail_enabled: outbox !== null,
        items: outbox ? await outbox.list(STATES[req.query.state], req.query.limit) : [],
      }),
    );
  };
}
