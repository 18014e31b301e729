import type { FastifyInstance } from 'fastify';
import type { Db } from 'mongodb';
import { writeAudit, type AuditCollections } from '../shared/audit';
import type { Clock } from '../shared/clock';
import { ApiError } from '../shared/errors';
import { stricterInDocument } from '../shared/http/schema-parts';
import { portalPartner } from '../identity/principal';
import { WebhookOutbox } from './webhook-outbox';

export interface WebhookRouteDeps {
  db: Db;
  audit: AuditCollections;
  clock: Clock;
  allowHttp: boolean; // CALLBACK_ALLOW_HTTP: as for callback URLs
}

const error = { type: 'object', required: ['error', 'message'], properties: { error: {}, message: {} } };
const setting = {
  type: 'object',
  required: ['url'],
  properties: { url: { type: ['string', 'null'], description: 'Where your alerts are posted; null: nowhere' } },
};
const TAGS = ['Integration'];
const PATH = '/portal/api/alerts/webhook';

// A partner's webhook for its alerts, in the portal: read by any of its people, named or removed by
// an admin (portal.act), audited as a change of the partner's settings. The URL is checked as a
// callback URL is when saved; the address it reaches is judged at each post, as a callback's is.
export function alertWebhookRoutes(d: WebhookRouteDeps) {
  const outbox = new WebhookOutbox(d.db, d.clock);
  const audited = (actor: Parameters<typeof writeAudit>[1], partnerId: string, change: string) =>
    writeAudit(d.audit, actor, 'partner.update', { partnerId, details: { alert_webhook: change } }, d.clock);
  return async function register(app: FastifyInstance): Promise<void> {
    app.get(
      PATH,
      {
        schema: { tags: TAGS, summary: "Your alerts' webhook", response: { 200: setting, 401: error } },
        config: { portalAccess: 'portal.read' },
      },
      async (req) => ({ url: await outbox.urlOf(portalPartner(req)) }),
    );
    app.put<{ Body: { url: string } }>(
      PATH,
      {
        // The document says https, as for callback URLs; the route also takes http where
        // CALLBACK_ALLOW_HTTP says so (a test set-up), refusing it in code otherwise.
        schema: stricterInDocument(
          {
            tags: TAGS,
            summary: 'Post your alerts to this URL, signed and retried as your callbacks are',
            body: {
              type: 'object',
              required: ['url'],
              additionalProperties: false,
              properties: { url: { type: 'string', format: 'uri', maxLength: 2048 } },
            },
            response: { 200: setting, 400: error, 401: error, 403: error, 413: error, 415: error, 422: error },
          },
          { url: { type: 'string', format: 'uri', maxLength: 2048, pattern: '^https://[^/?#@]+([/?#].*)?$' } },
        ),
        config: { portalAccess: 'portal.act' },
      },
      async (req) => {
        const url = new URL(req.body.url);
        if (url.protocol !== 'https:' && !(d.allowHttp && url.protocol === 'http:'))
          throw new ApiError('invalid_request', { detail: '/url must be https' });
        if (url.username || url.password)
          throw new ApiError('invalid_request', { detail: '/url must not carry credentials' });
        const partnerId = portalPartner(req);
        const { actor } = req;
        const accountId = req.principal.id;
        await outbox.settings.updateOne(
          { _id: partnerId },
          { $set: { url: url.href, updated_at: d.clock.now(), updated_by: accountId } },
          { upsert: true },
        );
        await audited(actor, partnerId, 'set');
        return { url: url.href };
      },
    );
    app.delete(
      PATH,
      {
        schema: { tags: TAGS, summary: 'Post your alerts nowhere', response: { 200: setting, 401: error, 403: error } },
        config: { portalAccess: 'portal.act' },
      },
      async (req) => {
        await outbox.settings.deleteOne({ _id: portalPartner(req) });
        await audited(req.actor, portalPartner(req), 'removed');
        return { url: null };
      },
    );
  };
}
