import {
  answers,
  BODY_ERRORS,
  dateTime,
  ID_ERRORS,
  idParams,
  nullable,
  object,
  str,
} from '../../shared/http/schema-parts';
import { ACCOUNTS, body, partnerIds, role } from '../../identity/identity-schema-parts';

// Route schemas of the service accounts (machine tokens).
const serviceToken = object({
  id: str,
  name: str,
  role,
  partner_ids: { type: 'array', items: str },
  prefix: { type: 'string', description: 'The first characters of the token' },
  created_at: dateTime,
  created_by: str,
  expires_at: dateTime,
  last_used_at: nullable('string', { format: 'date-time' }),
  revoked_at: nullable('string', { format: 'date-time' }),
});
export const serviceTokenSchemas = {
  list: {
    tags: ACCOUNTS,
    summary: 'Service accounts (machine tokens), newest first',
    response: answers({ 200: object({ items: { type: 'array', items: serviceToken } }) }),
  },
  create: {
    tags: ACCOUNTS,
    summary: 'A service account: its token is shown only in this answer',
    body: body(
      {
        name: { type: 'string', minLength: 1, maxLength: 200 },
        role,
        partner_ids: partnerIds,
        expires_in_days: { type: 'integer', minimum: 1, maximum: 730 },
      },
      ['name', 'role', 'expires_in_days'],
    ),
    response: answers(
      { 201: object({ ...(serviceToken.properties as Record<string, unknown>), token: str }) },
      ...BODY_ERRORS,
    ),
  },
  revoke: {
    tags: ACCOUNTS,
    summary: 'Revoke a service account: its token fails at once',
    params: idParams,
    response: answers({ 200: serviceToken }, ...ID_ERRORS),
  },
};
