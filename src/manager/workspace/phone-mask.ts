import { parsePhoneNumberFromString } from 'libphonenumber-js';

// A lead's number as its agent's queue and card show it, "+44 79** ***456": the country code, the
// first two and the last three digits of the national number, never more, and at least four hidden
// (a short number shows fewer). The whole number goes only through the audited contact reveal. Pure.
export function maskPhone(e164: string): string {
  const parsed = parsePhoneNumberFromString(e164);
  const code = parsed?.countryCallingCode ?? '';
  const national = parsed ? String(parsed.nationalNumber) : e164.replace(/\D/g, '');
  const tail = Math.max(0, Math.min(3, national.length - 4));
  const head = national.length - tail >= 6 ? 2 : 0;
  const hidden = national.length - head - tail;
  const digits = national.slice(0, head) + '*'.repeat(hidden) + national.slice(national.length - tail);
  // Grouped after the fourth digit, as the sample: "79** ***456".
  const grouped = digits.length > 6 ? `${digits.slice(0, 4)} ${digits.slice(4)}` : digits;
  return code ? `+${code} ${grouped}` : grouped;
}
