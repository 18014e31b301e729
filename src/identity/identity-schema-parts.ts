import type { JsonSchema } from '../shared/schemas';
import { ROLES } from './roles';
import { refusedUnless } from '../shared/http/schema-parts';
import { PASSWORD_MAX, PASSWORD_MIN, passwordProblem } from './passwords';

// The pieces the identity route schemas share: their OpenAPI sections and the fields of a person.
export const SIGN_IN = ['Sign-in'];
export const ACCOUNTS = ['Accounts'];
export const email = { type: 'string', format: 'email', maxLength: 254 } as const;
export const password = { type: 'string', minLength: 1, maxLength: PASSWORD_MAX * 4 } as const;
// A password being set: 12 to 256 characters, and none a guesser tries first (passwords.ts).
export const newPassword = {
  type: 'string',
  minLength: PASSWORD_MIN,
  maxLength: PASSWORD_MAX,
  description: '12 to 256 characters, not among the most common passwords (nor one repeated); no composition rule',
} as const;
// The 422 of a route setting the password in `field`: a list of common passwords is no JSON Schema.
export const newPasswordRefusal = (field: string): JsonSchema =>
  refusedUnless(`${field} is among the most common passwords (whatever its case or trailing digits) or a repetition`, {
    common_password: `/${field}: ${passwordProblem('Password123456')}`,
  });
export const role = { enum: ROLES } as const;
export const partnerIds = {
  type: 'array',
  maxItems: 1000,
  uniqueItems: true,
  // A partner id as the partner service makes it (randomId('pa')); whether it exists is checked in code.
  items: { type: 'string', pattern: '^pa-[0-9a-f]{16}$' },
} as const;
export const agentId = {
  type: ['string', 'null'],
  minLength: 1,
  maxLength: 64,
  description: 'For role agent: the agent record (ag-...) this person works as',
} as const;
export const body = (
  properties: Record<string, unknown>,
  required: string[] = Object.keys(properties),
): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  required,
  properties,
});

// A one-time link sent by mail (SMTP_URL set): the answer names where it went, never the link.
export const linkMailed = {
  type: 'object',
  required: ['mailed_to', 'mail_id', 'expires_at'],
  properties: {
    mailed_to: { type: 'string', description: "The account's email; the link is in the mail only" },
    mail_id: { type: 'string', description: 'The message in the outbox (GET /api/mail)' },
    expires_at: { type: 'string', format: 'date-time' },
  },
} as const;
// A link shown in the answer (no relay configured, or the break-glass set-up of an owner), or mailed.
export const shownOrMailed = (shown: JsonSchema, extra: Record<string, unknown> = {}): JsonSchema => {
  const add = (s: JsonSchema) => ({
    ...s,
    required: [...Object.keys(extra), ...((s.required as string[]) ?? [])],
    properties: { ...extra, ...(s.properties as Record<string, unknown>) },
  });
  return { oneOf: [add(shown), add(linkMailed)] };
};
