import { validatorFor, type InboundLead } from '../shared/schemas';
import { isWellFormed } from '../shared/unicode';
import { toCanonical, type FieldMapping } from './field-mapping';
import { reason, reasonFromAjv, type ValidationReason } from './validation-reasons';

const validate = validatorFor<InboundLead>('inbound-lead.json');
// metadata nested deeper than this is refused: the schema checks and serialisers downstream recurse,
// and a 64 KiB body can nest thousands of levels (a stack overflow there was a 500).
export const METADATA_MAX_DEPTH = 32;

export type ReadResult = { ok: true; lead: InboundLead } | { ok: false; reason: ValidationReason };

// A parsed JSON body becomes a schema-checked canonical lead (spec 2.2), or the first reason it is not one.
export function readInboundLead(body: unknown, mapping: FieldMapping): ReadResult {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    return { ok: false, reason: reason.invalidType('body') };
  const mapped = toCanonical(body as Record<string, unknown>, mapping);
  if (!mapped.ok) return mapped;
  if (!validate(mapped.lead)) {
    const first = validate.errors?.[0];
    return { ok: false, reason: first ? reasonFromAjv(first) : reason.invalidValue('body') };
  }
  if (mapped.lead.metadata !== undefined && nestingDepth(mapped.lead.metadata) > METADATA_MAX_DEPTH) {
    return { ok: false, reason: reason.tooLong('metadata') };
  }
  const illFormed = fieldNotUnicode(mapped.lead);
  if (illFormed) return { ok: false, reason: reason.invalidFormat(illFormed) };
  return { ok: true, lead: mapped.lead };
}

// The first field holding a string (or, in metadata, a key) that is not well-formed Unicode: the
// store and the topics would keep U+FFFD for it, so the lead stored and the events built from the
// request would differ, and a postback could not carry it.
function fieldNotUnicode(lead: InboundLead): string | null {
  for (const [field, value] of Object.entries(lead)) {
    const stack: unknown[] = [value];
    while (stack.length > 0) {
      const node = stack.pop();
      if (typeof node === 'string') {
        if (!isWellFormed(node)) return field;
      } else if (node !== null && typeof node === 'object') {
        for (const [key, child] of Object.entries(node)) {
          if (!isWellFormed(key)) return field;
          stack.push(child);
        }
      }
    }
  }
  return null;
}

// Levels of objects and arrays, counted without recursion; stops counting past the limit.
function nestingDepth(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0 && deepest <= METADATA_MAX_DEPTH) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    deepest = Math.max(deepest, depth);
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}
