import { schemas, type JsonSchema } from '../../shared/schemas';

// Settings come from schemas/partner-settings.json and schemas/agent.json, never restated.
export const SHARED_SCHEMA_IDS = ['partner-settings.json', 'agent.json'] as const;
type SharedSchemaId = (typeof SHARED_SCHEMA_IDS)[number];

const ref = (id: SharedSchemaId) => ({ $ref: `${id}#` });

export function propertiesOf(id: string): Record<string, unknown> {
  return (schemas.get(id)?.properties ?? {}) as Record<string, unknown>;
}

// Creation needs a name on top of the shared settings schema.
export const withName = (id: SharedSchemaId, ...more: JsonSchema[]) => ({
  type: 'object',
  allOf: [ref(id), ...more],
  required: ['name'],
});
export const nonEmpty = (id: SharedSchemaId, ...more: JsonSchema[]) => ({
  type: 'object',
  allOf: [ref(id), ...more],
  minProperties: 1,
});
