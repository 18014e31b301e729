import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export * from './types.generated';

// schemas/ is the one source of truth: HTTP validation, topic payloads and (generated) types.
export const SCHEMA_DIR = join(__dirname, '..', '..', '..', 'schemas');

export type JsonSchema = Record<string, unknown>;

function loadAll(): Map<string, JsonSchema> {
  const schemas = new Map<string, JsonSchema>();
  for (const file of readdirSync(SCHEMA_DIR).filter((f) => f.endsWith('.json'))) {
    schemas.set(file, JSON.parse(readFileSync(join(SCHEMA_DIR, file), 'utf8')) as JsonSchema);
  }
  return schemas;
}

export const schemas: ReadonlyMap<string, JsonSchema> = loadAll();

// strictRequired off: the money ban ("not": {"anyOf": [{"required": ["amount"]}, ...]}) names
// properties that are deliberately not defined.
export const ajv = new Ajv({ allErrors: false, strict: true, strictRequired: false, allowUnionTypes: true });
addFormats(ajv);
for (const schema of schemas.values()) ajv.addSchema(schema);

export function validatorFor<T>(schemaId: string): ValidateFunction<T> {
  const fn = ajv.getSchema<T>(schemaId);
  if (!fn) throw new Error(`no schema ${schemaId} in ${SCHEMA_DIR}`);
  return fn;
}

export function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`.trim()).join('; ');
}

// The registry gets self-contained schemas without $id: $refs between our files are inlined, because
// schema references are a known weak spot of registries' Confluent-compatible APIs.
export function bundledSchema(schemaId: string): JsonSchema {
  const inline = (node: unknown, top: boolean): unknown => {
    if (Array.isArray(node)) return node.map((n) => inline(n, false));
    if (!node || typeof node !== 'object') return node;
    const obj = node as Record<string, unknown>;
    if (typeof obj.$ref === 'string' && schemas.has(obj.$ref)) return inline(schemas.get(obj.$ref), false);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(obj)) {
      if (k === '$id' || (!top && k === '$schema')) continue;
      out[k] = inline(v, false);
    }
    return out;
  };
  const schema = schemas.get(schemaId);
  if (!schema) throw new Error(`no schema ${schemaId}`);
  return inline(schema, true) as JsonSchema;
}
