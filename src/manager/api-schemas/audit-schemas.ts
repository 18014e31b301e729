import { AUDIT_ACTIONS } from '../../shared/audit-actions';
import { CURSOR_QUERY } from '../pagination';
import { answers, dateTime, nullable, object, str } from '../../shared/http/schema-parts';
import { cursorPage } from './list-shapes';

// Route schema of the audit log of manager actions.
const auditEntry = object({
  id: str,
  at: dateTime,
  actor: {
    type: 'string',
    description:
      "acc-... (an account), sa-... (a service account), break-glass:<first 6 hex of the token's SHA-256>, anonymous (a failed sign-in) or system:<role>",
  },
  actor_name: { type: 'string', description: 'The display name of the account or service account (or the actor id)' },
  auth_method: nullable('string', {
    description: 'password, passkey, sso, token, break_glass or system (null: before accounts)',
  }),
  client_address: nullable('string'),
  action: str,
  affiliate_id: nullable('string'),
  target: nullable('string'),
  details: { type: 'object' },
});

export const auditSchemas = {
  listAudit: {
    tags: ['audit'],
    summary: 'The audit log of manager actions, newest first',
    querystring: {
      type: 'object',
      additionalProperties: false,
      properties: { affiliate_id: str, action: { enum: AUDIT_ACTIONS }, ...CURSOR_QUERY },
    },
    response: answers({ 200: cursorPage(auditEntry) }, 422),
  },
} as const;
