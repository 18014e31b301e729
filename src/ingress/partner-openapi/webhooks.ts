import { component } from './components';
import type { Json, PartnerDocSettings } from './doc-parts';

// The callbacks partners receive, as the document's webhooks (spec 5, 6): one per event.
const EVENT_EXAMPLES: Record<string, Json> = {
  'lead.accepted': { status: 'new', our_status: 'new', is_depositor: false },
  'lead.rejected': { status: 'rejected', our_status: 'rejected', is_depositor: false, reason: 'country_blocked:KP' },
  'lead.status_changed': {
    status: 'in_progress',
    our_status: 'contacted',
    is_depositor: false,
    from_status: 'assigned',
  },
  'lead.ftd': { status: 'ftd', our_status: 'ftd', is_depositor: true },
  'lead.rtd': { status: 'rtd', our_status: 'rtd', is_depositor: true },
};

// The payload of one event: schemas/callback-payload.json with the event fixed; reason only on
// lead.rejected, from_status only on lead.status_changed (as buildCallbackPayload sends them).
function eventPayload(event: string): Json {
  const { title: _title, ...base } = component('callback-payload.json');
  const { reason, from_status: fromStatus, ...common } = base.properties as Json;
  const properties: Json = { ...common, event: { const: event } };
  if (event === 'lead.rejected') properties.reason = reason;
  if (event === 'lead.status_changed') properties.from_status = fromStatus;
  const required = [...(base.required as string[]), ...(event === 'lead.rejected' ? ['reason'] : [])];
  return { ...base, description: `${String(base.description)} Event ${event}.`, required, properties };
}

export function webhooks(s: PartnerDocSettings): Json {
  const header = (name: string, description: string, schema: Json, required = true) => ({
    name,
    in: 'header',
    required,
    description,
    schema,
  });
  const spec = ' (signature_scheme spec, the default)';
  const standard = ' (signature_scheme standard-webhooks)';
  const out: Json = {};
  for (const event of Object.keys(EVENT_EXAMPLES)) {
    out[event] = {
      post: {
        summary: `${event}: POSTed to your callback_url`,
        description:
          'Verify X-Signature against the HMAC-SHA256 of the raw, unparsed body keyed with your callback_secret' +
          ' (constant-time; the sha256= prefix is optional in comparison) and refuse an X-Timestamp more than 5 minutes' +
          ' from your clock; with signature_scheme standard-webhooks verify webhook-signature with a Standard Webhooks' +
          ' library instead (during a rotation grace it carries two signatures). Answer 2xx within 10 seconds; 5xx, 408,' +
          ' 429 and timeouts are retried (+1 min, +5 min, +30 min, +2 h; 5 attempts), other answers get one more attempt.' +
          ' A 429 or 503 with Retry-After (seconds or an HTTP date) delays the next attempt that long (at most 2 h);' +
          ' 410 Gone flags your endpoint as gone. An endpoint failing every attempt for 24 h is paused until a manager' +
          ' resumes it (nothing is lost). The same event may arrive more than once (X-Event-Id is the same on every' +
          ' attempt and replay): drop repeats by it. Never carries money.',
        parameters: [
          header(
            'X-Event-Id',
            "<lead id>:<sequence>: the same on every attempt and replay of this event, unique per event (le-0:test-<hex> for a manager's test callback)",
            { type: 'string', pattern: '^le-[0-9]+:([0-9]+|test-[0-9a-f]+)$' },
          ),
          header(
            'X-Signature',
            `sha256=<hex HMAC-SHA256 of the raw body with your callback_secret>${spec}`,
            { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
            false,
          ),
          header('X-Timestamp', `Unix seconds of this attempt${spec}`, { type: 'string', pattern: '^[0-9]+$' }, false),
          header('webhook-id', `The same as X-Event-Id${standard}`, { type: 'string' }, false),
          header(
            'webhook-timestamp',
            `Unix seconds of this attempt${standard}`,
            { type: 'string', pattern: '^[0-9]+$' },
            false,
          ),
          header(
            'webhook-signature',
            `v1,<base64 HMAC-SHA256 of "webhook-id.webhook-timestamp.body" with your whsec_ secret>, space separated when there are two${standard}`,
            { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
            false,
          ),
          header('X-Event', 'The event name, as in the body', { const: event }),
          header('User-Agent', 'The service name', { const: `${s.serviceName}-Webhook/1.0` }),
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: eventPayload(event),
              example: {
                event,
                external_lead_id: 'aff-55120',
                internal_id: 'le-1042',
                timestamp: '2026-11-22T10:15:00.000Z',
                ...EVENT_EXAMPLES[event],
              },
            },
          },
        },
        responses: {
          '2XX': { description: 'Delivered; no more attempts' },
          '410': {
            description:
              'Your endpoint is gone: one more attempt, then the callback is dead; the endpoint is flagged gone',
          },
          '429': retryAfterAnswer('Too many requests: the next attempt waits as long as Retry-After asks'),
          '503': retryAfterAnswer('Unavailable: the next attempt waits as long as Retry-After asks'),
        },
      },
    };
  }
  return out;
}

function retryAfterAnswer(description: string): Json {
  return {
    description,
    headers: {
      'Retry-After': {
        description: 'Seconds, or an HTTP date; never earlier than our schedule, at most its last delay (2 h)',
        schema: { type: 'string' },
      },
    },
  };
}
