import {
  answers,
  BODY_ERRORS,
  dateTime,
  ID_ERRORS,
  idParams,
  int,
  nullable,
  object,
  str,
} from '../../shared/http/schema-parts';
import {
  ACCOUNTS,
  agentId,
  body,
  email,
  newPassword,
  newPasswordRefusal,
  partnerIds,
  password,
  role,
  shownOrMailed,
} from '../../identity/identity-schema-parts';
import { managerSignIn } from '../../identity/manager-sign-in-schemas';

// Route schemas of the manager's accounts: the Accounts section (people, one-time links) and one's own account.
const account = object({
  id: str,
  email: str,
  name: str,
  role,
  partner_ids: { type: 'array', items: str },
  agent_id: nullable('string'),
  status: { enum: ['invited', 'active', 'disabled'] },
  second_factors: object({ totp: { type: 'boolean' }, passkeys: int }),
  sso: { type: ['object', 'null'], properties: { issuer: str, subject: str } },
  created_at: dateTime,
  created_by: str,
  updated_at: dateTime,
  last_sign_in_at: nullable('string', { format: 'date-time' }),
});
const link = object({
  token: { type: 'string', description: 'Shown once; the link is /console/#/link/<token>' },
  path: str,
  url: nullable('string', { description: 'The whole link when CONSOLE_URL is set' }),
  expires_at: dateTime,
});
export const accountSchemas = {
  list: {
    tags: ACCOUNTS,
    summary: 'Every account',
    response: answers({ 200: object({ items: { type: 'array', items: account } }) }),
  },
  show: { tags: ACCOUNTS, summary: 'One account', params: idParams, response: answers({ 200: account }, ...ID_ERRORS) },
  invite: {
    tags: ACCOUNTS,
    summary:
      'Invite a person: an account with a role and a one-time link (24 h) to set a password, mailed to them (shown once here where no relay is configured, or to the break-glass token inviting an owner)',
    body: body(
      {
        email,
        name: { type: 'string', minLength: 1, maxLength: 200 },
        role,
        partner_ids: partnerIds,
        agent_id: agentId,
      },
      ['email', 'name', 'role'],
    ),
    response: answers({ 201: object({ account, invitation: shownOrMailed(link) }) }, 409, ...BODY_ERRORS),
  },
  update: {
    tags: ACCOUNTS,
    summary: "Change an account's name, role, partners or status; a change of rights ends its sessions",
    params: idParams,
    body: {
      ...body(
        {
          name: { type: 'string', minLength: 1, maxLength: 200 },
          role,
          partner_ids: partnerIds,
          agent_id: agentId,
          status: { enum: ['active', 'disabled'] },
        },
        [],
      ),
      minProperties: 1,
    },
    response: answers({ 200: account }, ...ID_ERRORS, 409, ...BODY_ERRORS),
  },
  link: {
    tags: ACCOUNTS,
    summary:
      'A new one-time link: an invitation again, or a password reset (24 h), mailed to the account (shown once here where no relay is configured, or to the break-glass token for an owner)',
    params: idParams,
    response: answers(
      {
        201: shownOrMailed(link, { kind: { enum: ['invitation', 'password_reset'] } }),
      },
      ...ID_ERRORS,
      409,
    ),
  },
};

export const factorResetSchema = {
  tags: ACCOUNTS,
  summary:
    "Reset a person's lost second factors (TOTP and passkeys): their sessions end and their next sign-in sets one up (an owner, for owners and admins; not yourself)",
  params: idParams,
  response: answers({ 200: account }, ...ID_ERRORS, 409),
};

export const meSchemas = {
  me: {
    tags: ACCOUNTS,
    summary: 'Who is calling: the principal, and the account of a person',
    response: answers({
      200: object({
        principal: object({ id: str, name: str, role, kind: str }),
        account: { anyOf: [account, { type: 'null' }] },
      }),
    }),
  },
  password: {
    tags: ACCOUNTS,
    summary:
      'Change your password: every other session ends, this one gets a new id (wrong current passwords are throttled as sign-ins)',
    body: body({ current_password: password, new_password: newPassword }),
    response: {
      ...answers({ 200: managerSignIn.session }, 409, 429, ...BODY_ERRORS),
      422: newPasswordRefusal('new_password'),
    },
  },
  signOutEverywhere: {
    tags: ACCOUNTS,
    summary: 'End every session of your account',
    response: answers({ 204: { type: 'null' } }, 409),
  },
};
