import { validatorFor, type InboundLead } from '../shared/schemas';
import { toCanonical, type FieldMapping } from './field-mapping';
import { reason, reasonFromAjv, type ValidationReason } from './validation-reasons';

const validate = validatorFor<InboundLead>('inbound-lead.json');

export type ReadResult = { ok: true; lead: InboundLead } | { ok: false; reason: ValidationReason };

// A parsed JSON body becomes a schema-checked canonical lead (spec 2.2), or the first reason it is not one.
export function readInboundLead(body: unknown, mapping: FieldMapping): ReadResult {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { ok: false, reason: reason.invalidType('body') };
  const mapped = toCanonical(body as Record<string, unknown>, mapping);
  if (!mapped.ok) return mapped;
  if (!validate(mapped.lead)) {
    const first = validate.errors?.[0];
    return { ok: false, reason: first ? reasonFromAjv(first) : reason.invalidValue('body') };
  }
  return { ok: true, lead: mapped.lead };
}
