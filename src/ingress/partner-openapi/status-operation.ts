import { ref, type Json, type PartnerDocSettings } from './doc-parts';
import { errorResponses, STATUS_ERRORS } from './error-answers';

// GET /api/v1/inbound/leads/{externalId}/status (spec 4.2).
export function statusOperation(s: PartnerDocSettings): Json {
  return {
    operationId: 'leadStatus',
    tags: ['status'],
    summary: 'The status of one of your leads by its external id (spec 4.2)',
    description:
      "X-Signature signs the empty body. Another partner's lead is as unknown as one that does not exist (404).",
    parameters: [
      {
        name: 'externalId',
        in: 'path',
        required: true,
        description: 'external_id sent at intake (or the Idempotency-Key that stood in for it)',
        schema: { type: 'string', minLength: 1 },
        example: 'aff-55120',
      },
    ],
    responses: {
      200: {
        description: 'The lead; status in your codes, never money',
        content: {
          'application/json': {
            schema: ref('LeadStatus'),
            examples: {
              contacted: {
                summary: 'A contacted lead',
                value: {
                  id: 'le-1042',
                  external_id: 'aff-55120',
                  status: 'in_progress',
                  our_status: 'contacted',
                  is_depositor: false,
                  created_at: '2026-11-22T10:00:00.000Z',
                  updated_at: '2026-11-22T10:15:00.000Z',
                },
              },
            },
          },
        },
      },
      ...errorResponses(STATUS_ERRORS, s),
    },
  };
}
