import type { JsonSchema } from '../../../shared/schemas';
import { PORTAL_ROLES } from '../../../identity/portal-roles';
import { meSchemas } from '../../../manager/identity/identity-schemas';
import { newPasswordRefusal, shownOrMailed } from '../../../identity/identity-schema-parts';
import { portalSignInSchemas } from '../../../identity/portal-realm';
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
  stricterInDocument,
} from '../../../shared/http/schema-parts';
import { DOCUMENTED_TIME_ZONES } from '../../../manager/time-zone-setting';

// Route schemas of a partner's people: the portal's Users section, and the manager's invitation of a
// partner's first admin.
const PEOPLE = ['People'];
const email = { type: 'string', format: 'email', maxLength: 254 } as const;
const name = { type: 'string', minLength: 1, maxLength: 200 } as const;
const body = (properties: Record<string, unknown>): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  required: Object.keys(properties),
  properties,
});

const user = object({
  id: str,
  email: str,
  name: str,
  role: { enum: PORTAL_ROLES },
  partner_id: str,
  time_zone: nullable('string', { description: "The person's own time zone (IANA); null: the partner's" }),
  status: { enum: ['invited', 'active', 'disabled'] },
  second_factors: object({ totp: { type: 'boolean' }, passkeys: int }),
  created_at: dateTime,
  created_by: str,
  last_sign_in_at: nullable('string', { format: 'date-time' }),
});
const link = object({
  token: { type: 'string', description: 'Shown once; the link is /portal/#/link/<token>' },
  path: str,
  url: { type: 'string', description: 'The whole link (at CONSOLE_URL when set, else at the address asked)' },
  expires_at: dateTime,
});
const invited = object({ user, link: shownOrMailed(link) });

export const userSchemas = {
  list: {
    tags: PEOPLE,
    summary: "Your partner's people in the portal",
    response: answers({ 200: object({ items: { type: 'array', items: user } }) }),
  },
  invite: {
    tags: PEOPLE,
    summary:
      'Invite a colleague as partner_admin or partner_viewer: a one-time link (24 h) to set a password, mailed to them (shown once here where no relay is configured)',
    body: body({ email, name, role: { enum: PORTAL_ROLES } }),
    response: answers({ 201: invited }, 409, ...BODY_ERRORS),
  },
  disable: {
    tags: PEOPLE,
    summary: 'Disable a colleague: their sessions end at once (not yourself)',
    params: idParams,
    response: answers({ 200: user }, ...ID_ERRORS, 409),
  },
  resetFactors: {
    tags: PEOPLE,
    summary:
      "Reset a colleague's lost second factors (TOTP and passkeys): their sessions end and their next sign-in sets one up (not yourself)",
    params: idParams,
    response: answers({ 200: user }, ...ID_ERRORS, 409),
  },
};

// A person's own account: every portal role may read and change it.
const ACCOUNT = ['Your account'];
const me = object({
  account: user,
  time_zone: { type: 'string', description: "The zone the portal is read in: yours, else your partner's, else UTC" },
});
export const ownAccountSchemas = {
  me: {
    tags: ACCOUNT,
    summary: 'Your own portal account: who you are, your second factors, your last sign-in',
    response: answers({ 200: me }),
  },
  // The document offers the zones this runtime lists; the route also takes the aliases it can
  // compute in, refusing others in code (as for a partner's time_zone).
  timeZone: stricterInDocument(
    {
      tags: ACCOUNT,
      summary:
        "Choose the time zone you read the portal in (an IANA name; null: your partner's): the overview's days up to today, the lead list's times and the CSV's",
      body: body({ time_zone: nullable('string', { minLength: 1, maxLength: 64 }) }),
      response: answers({ 200: me }, ...BODY_ERRORS),
    },
    { time_zone: { type: ['string', 'null'], enum: [...DOCUMENTED_TIME_ZONES, null] } },
  ),
  password: {
    tags: ACCOUNT,
    summary:
      'Change your password: every other session of yours ends, this one gets a new id (wrong current passwords are throttled as sign-ins)',
    body: meSchemas.password.body,
    response: {
      ...answers({ 200: portalSignInSchemas.session }, 429, ...BODY_ERRORS),
      422: newPasswordRefusal('new_password'),
    },
  },
  signOutEverywhere: {
    tags: ACCOUNT,
    summary: 'End every session of your account, this one included',
    response: answers({ 204: { type: 'null' } }),
  },
};

export const portalInvitationSchema = {
  tags: ['Affiliates'],
  summary:
    "Invite a partner's first portal admin (partner_admin): a one-time link (24 h) to /portal/, mailed to them (shown once here where no relay is configured)",
  params: idParams,
  body: body({ email, name }),
  response: answers({ 201: invited }, ...ID_ERRORS, 409, ...BODY_ERRORS),
};

export const portalEmailFreeSchema = {
  tags: ['Affiliates'],
  summary:
    'Free a portal email: the account that claimed it (tried first at sign-in) gives it up (disabled, its sessions end); the claim passes to the oldest other active portal account with it, if any (signs_in_to)',
  body: body({ email }),
  response: answers(
    {
      200: object({
        email: str,
        released_from: user,
        signs_in_to: { anyOf: [user, { type: 'null' }] },
      }),
    },
    404,
    ...BODY_ERRORS,
  ),
};
