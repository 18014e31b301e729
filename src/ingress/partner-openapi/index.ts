import { errorBody, inboundLeadOnTheWire, intakeResult, leadStatusSchema } from './components';
import type { Json, PartnerDocSettings } from './doc-parts';
import { dayReportSchema, partnerLeadRowSchema } from '../../manager/commands';
import { intakeOperation } from './intake-operation';
import { leadsOperation, reportsOperation } from './report-operations';
import { statusOperation } from './status-operation';
import { webhooks } from './webhooks';

export const PARTNER_OPENAPI_PATH = '/api/v1/inbound/openapi.json';

// The OpenAPI 3.1 document of the partner API (spec 4.1, 4.2, 5, 6): intake, status lookup, the
// reporting calls, and the callbacks as webhooks, from the schemas that validate them and the error registry.
export function partnerOpenApiDocument(s: PartnerDocSettings): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: `${s.serviceName} partner API`,
      version: '1.0.0',
      description:
        'Lead intake, status lookup and reporting (your leads, your traffic per day) for partners, and the signed callbacks partners receive. Every request carries' +
        ' Authorization: Bearer <api_key>, X-Signature: sha256=<hex HMAC-SHA256 of the raw body with your hmac_secret>' +
        ` (a GET signs the empty body) and X-Timestamp: <Unix seconds, within ${s.timestampToleranceS} s of our clock>.` +
        ' 401: we cannot tell who you are (missing or unknown key); 403: we know you but refuse the request (bad signature,' +
        ' stale timestamp, disabled partner). Errors are {error, message}.',
    },
    tags: [{ name: 'intake' }, { name: 'status' }, { name: 'reports' }],
    paths: {
      '/api/v1/inbound/leads': { post: intakeOperation(s) },
      '/api/v1/inbound/leads/{externalId}/status': { get: statusOperation(s) },
      '/api/v1/leads': { get: leadsOperation(s) },
      '/api/v1/reports': { get: reportsOperation(s) },
    },
    webhooks: webhooks(s),
    components: {
      schemas: {
        InboundLead: inboundLeadOnTheWire(),
        IntakeResult: intakeResult,
        LeadStatus: leadStatusSchema,
        PartnerLead: partnerLeadRowSchema,
        DayReport: dayReportSchema,
        Error: errorBody,
      },
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <api_key>' },
        signature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Signature',
          description:
            'sha256=<hex> where <hex> is the HMAC-SHA256 of the exact body bytes sent (empty for a GET), keyed with your hmac_secret; the sha256= prefix is optional',
        },
        timestamp: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Timestamp',
          description: `Unix time in seconds, within ${s.timestampToleranceS} seconds of our clock`,
        },
      },
    },
    security: [{ apiKey: [], signature: [], timestamp: [] }],
  };
}
