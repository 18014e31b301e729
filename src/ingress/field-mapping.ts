import { schemas } from '../shared/schemas';
import { reason, type ValidationReason } from './validation-reasons';

type Json = Record<string, unknown>;

// The canonical lead fields, read from schemas/inbound-lead.json so the two never drift apart.
export const CANONICAL_FIELDS: readonly string[] = Object.keys(
  (schemas.get('inbound-lead.json')?.properties ?? {}) as Json,
);

export type FieldMapping = Readonly<Record<string, string>>;

export type MappingResult = { ok: true; lead: Json } | { ok: false; reason: ValidationReason };

// Builds the canonical lead from a partner body: each canonical field comes from its field_mapping
// path ("contact.phone") or else from the same-named top-level key. Null and blank strings count as
// absent (lead forms often send "" for an empty input); other strings are trimmed. A top-level key
// that feeds no canonical field is refused rather than silently dropped.
export function toCanonical(body: Json, mapping: FieldMapping): MappingResult {
  const roots = new Set([...CANONICAL_FIELDS, ...Object.values(mapping).map((path) => path.split('.')[0] as string)]);
  const stray = Object.keys(body).find((key) => !roots.has(key));
  if (stray !== undefined) return { ok: false, reason: reason.unknownField(stray) };

  const lead: Json = {};
  for (const field of CANONICAL_FIELDS) {
    const path = mapping[field];
    const value = path === undefined ? own(body, field) : valueAt(body, path);
    const cleaned = typeof value === 'string' ? value.trim() : value;
    if (cleaned !== undefined && cleaned !== null && cleaned !== '') lead[field] = cleaned;
  }
  return { ok: true, lead };
}

export function valueAt(body: Json, path: string): unknown {
  let node: unknown = body;
  for (const segment of path.split('.')) {
    if (!node || typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = own(node as Json, segment);
  }
  return node;
}

// Own properties only: a body key such as "__proto__" or "constructor" must not reach the prototype.
function own(obj: Json, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}
