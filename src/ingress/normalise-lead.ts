import countries from 'i18n-iso-countries';
import ipaddr from 'ipaddr.js';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { InboundLead } from '../shared/schemas';
import { reason, type ValidationReason } from './validation-reasons';

// A lead in canonical form, phone and email still in clear: it lives only inside one request and
// is sealed (encrypted and hashed) before it goes anywhere.
export interface NormalisedLead extends Omit<InboundLead, 'phone' | 'email' | 'ip' | 'external_id'> {
  external_id: string;
  phone: string; // E.164
  email?: string; // lower-cased
  ip: string;
}

export interface IntakeContext {
  idempotencyKey: string;
  requestIp: string;
}

export type NormaliseResult = { ok: true; lead: NormalisedLead } | { ok: false; reason: ValidationReason };

// external_id is limited to 128 characters (the status lookup key); a longer Idempotency-Key cannot stand in.
const EXTERNAL_ID_MAX = 128;

export function normaliseLead(input: InboundLead, ctx: IntakeContext): NormaliseResult {
  const phone = e164(input.phone);
  if (!phone) return { ok: false, reason: reason.invalidFormat('phone') };

  let countryCode: string | undefined;
  if (input.country !== undefined) {
    countryCode = countryToCode(input.country);
    if (!countryCode) return { ok: false, reason: reason.invalidValue('country') };
  }
  if (input.country_code !== undefined) {
    countryCode = input.country_code.toUpperCase();
    if (!countries.isValid(countryCode)) return { ok: false, reason: reason.invalidValue('country_code') };
  }

  const externalId =
    input.external_id ?? (ctx.idempotencyKey.length <= EXTERNAL_ID_MAX ? ctx.idempotencyKey : undefined);
  if (externalId === undefined) return { ok: false, reason: reason.missing('external_id') };

  const fullName = input.full_name ?? ([input.first_name, input.last_name].filter(Boolean).join(' ') || undefined);
  const lead: NormalisedLead = {
    ...input,
    external_id: externalId,
    phone,
    email: input.email?.toLowerCase(),
    full_name: fullName,
    country_code: countryCode,
    ip: plainIp(input.ip ?? ctx.requestIp),
  };
  return { ok: true, lead: dropUndefined(lead) };
}

// International format only (spec 2.2): a leading "+", then a number that is possible for its country.
export function e164(raw: string): string | null {
  if (!raw.startsWith('+')) return null;
  const parsed = parsePhoneNumberFromString(raw);
  return parsed?.isPossible() ? parsed.number : null;
}

// "DE", "deu", "Germany" -> "DE"; null when it names no ISO 3166 country.
export function countryToCode(raw: string): string | undefined {
  const text = raw.trim();
  if (/^[A-Za-z]{2}$/.test(text) && countries.isValid(text.toUpperCase())) return text.toUpperCase();
  if (/^[A-Za-z]{3}$/.test(text)) {
    const code = countries.alpha3ToAlpha2(text.toUpperCase());
    if (code) return code;
  }
  return countries.getAlpha2Code(text, 'en');
}

// "::ffff:10.0.0.1" (an IPv4 client on a dual-stack socket) is stored as "10.0.0.1".
function plainIp(ip: string): string {
  try {
    return ipaddr.process(ip).toString();
  } catch {
    return ip;
  }
}

function dropUndefined<T extends object>(obj: T): T {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as T;
}
