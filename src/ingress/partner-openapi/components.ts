import { ERRORS } from '../../shared/errors';
import { schemas } from '../../shared/schemas';
import type { Json } from './doc-parts';

// The schemas the partner document's operations and webhooks refer to (components.schemas).

// A schema of schemas/ as a component: no $id or $schema (OpenAPI 3.1 reads it as JSON Schema 2020-12,
// and every keyword these files use means the same there).
export function component(id: string): Json {
  const { $id: _id, $schema: _schema, ...rest } = schemas.get(id) ?? {};
  return rest;
}

// The body as partners may send it: null and blank strings count as absent (lead forms send "" for an
// empty input), so every optional field also admits them; phone, the one required field, does not.
export function inboundLeadOnTheWire(): Json {
  const lead = component('inbound-lead.json');
  const required = new Set(lead.required as string[]);
  const properties: Json = {};
  for (const [name, schema] of Object.entries(lead.properties as Record<string, Json>)) {
    const absent = [{ type: 'null' }, ...(isStringField(schema) ? [{ type: 'string', pattern: '^\\s*$' }] : [])];
    properties[name] = required.has(name) ? schema : { anyOf: [schema, ...absent] };
  }
  return {
    ...lead,
    properties,
    description:
      `${String(lead.description)} Strings are trimmed; null and blank values count as absent. With a field_mapping the` +
      " partner's own layout is sent instead and mapped to these fields before validation.",
  };
}

function isStringField(schema: Json): boolean {
  return (
    schema.type === 'string' ||
    (Array.isArray(schema.anyOf) && (schema.anyOf as Json[]).every((s) => s.type === 'string'))
  );
}

const RESULT_STATUSES = ['accepted', 'duplicate', 'validation_error', 'rejected'] as const;

export const intakeResult: Json = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'status', 'reason'],
  description: 'The intake result (spec 2.3)',
  properties: {
    id: {
      type: ['string', 'null'],
      pattern: '^le-[0-9]+$',
      description: "Our lead id; the existing lead's on a duplicate; null on validation_error and rejected",
    },
    status: { enum: RESULT_STATUSES },
    reason: {
      type: ['string', 'null'],
      description: 'Null on acceptance, else a machine-readable reason (see the 409 and 422 answers)',
    },
    duration_ms: {
      type: 'integer',
      minimum: 0,
      description: 'Only on a fresh acceptance: time spent on the whole intake',
    },
    replay: {
      const: true,
      description: 'Only when the stored answer to an earlier request with this Idempotency-Key is returned',
    },
  },
};

export const errorBody: Json = {
  type: 'object',
  additionalProperties: false,
  required: ['error', 'message'],
  properties: {
    error: { enum: Object.keys(ERRORS), description: 'A code of the error registry' },
    message: { type: 'string' },
    replay: {
      const: true,
      description: 'On a replayed answer (malformed_json is stored under its Idempotency-Key like any answer)',
    },
  },
};

export const leadStatusSchema: Json = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'external_id', 'status', 'our_status', 'is_depositor', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string', pattern: '^le-[0-9]+$' },
    external_id: { type: 'string' },
    status: { type: 'string', description: "Our status in the partner's codes (after its status_mapping)" },
    our_status: { type: 'string', description: 'Our canonical status code' },
    is_depositor: { type: 'boolean' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
};
