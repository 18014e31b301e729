import type { JsonSchema } from '../../shared/schemas';
import { answers, BODY_ERRORS, dateTime, ID_ERRORS, idParams, int, nullable, object, str } from '../schema-parts';
import { PASSWORD_MAX, PASSWORD_MIN } from './passwords';
import { PERMISSIONS, ROLES } from '../../shared/identity/roles';

// Route schemas of accounts, sessions and service accounts: they validate requests and document
// the manager OpenAPI's "Accounts" and "Sign-in" sections.
const SIGN_IN = ['Sign-in'];
const ACCOUNTS = ['Accounts'];
const email = { type: 'string', format: 'email', maxLength: 254 } as const;
const password = { type: 'string', minLength: 1, maxLength: PASSWORD_MAX * 4 } as const;
// A password being set: 12 to 256 characters, nothing else asked (passwords.ts).
const newPassword = {
  type: 'string',
  minLength: PASSWORD_MIN,
  maxLength: PASSWORD_MAX,
  description: '12 to 256 characters; no other rule',
} as const;
const role = { enum: ROLES } as const;
const partnerIds = {
  type: 'array',
  maxItems: 1000,
  uniqueItems: true,
  items: { type: 'string', minLength: 1, maxLength: 64 },
} as const;
const agentId = {
  type: ['string', 'null'],
  minLength: 1,
  maxLength: 64,
  description: 'For role agent: the agent record (ag-...) this person works as',
} as const;
const body = (properties: Record<string, unknown>, required: string[] = Object.keys(properties)): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  required,
  properties,
});

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
const tokenParams = object({ token: { type: 'string', minLength: 1, maxLength: 200 } });

// A WebAuthn ceremony's JSON as @simplewebauthn/browser gives it; @simplewebauthn/server checks the rest.
const credentialJson = {
  type: 'object',
  required: ['id', 'rawId', 'type', 'response'],
  description: 'The PublicKeyCredential as JSON (@simplewebauthn/browser)',
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 1400 },
    rawId: { type: 'string', maxLength: 1400 },
    type: { const: 'public-key' },
    response: { type: 'object' },
  },
} as const;
const webauthnOptions = (what: string): JsonSchema => ({
  type: 'object',
  additionalProperties: true,
  description: `${what} for navigator.credentials (WebAuthn), with a challenge kept in this session`,
});

// The sign-in steps' schemas for a realm: who a session names (its account's properties), the roles
// and the permissions it may hold. The manager's are below; the portal's come from its realm.
export interface SessionShape {
  account: Record<string, unknown>;
  role: JsonSchema;
  permissions: readonly string[];
}

export function signInSchemas(who: SessionShape) {
  const role = who.role;
  const session = object({
    stage: {
      enum: ['second_factor', 'enroll', 'signed_in', null],
      description: 'second_factor: a TOTP code or passkey is due; enroll: set one up first',
    },
    account: {
      type: ['object', 'null'],
      description: 'Who is signed in (null before the last step)',
      properties: who.account,
    },
    permissions: { type: 'array', items: { enum: who.permissions }, description: 'What the role may do' },
    csrf_token: { type: 'string', description: 'Send as X-CSRF-Token with every request that changes something' },
  });
  const withFactors = object({
    ...(session.properties as Record<string, unknown>),
    second_factors: object({ totp: { type: 'boolean' }, passkey: { type: 'boolean' } }),
  });
  const auth = {
    session: {
      tags: SIGN_IN,
      summary: "This browser's session: its stage, who, what the role may do, the CSRF token",
      response: answers({ 200: session }),
    },
    signIn: {
      tags: SIGN_IN,
      summary: 'Email and password: the first step (throttled per account and per address)',
      body: body({ email, password }),
      response: answers({ 200: withFactors }, 403, 429, ...BODY_ERRORS),
    },
    code: {
      tags: SIGN_IN,
      summary: 'A TOTP code (RFC 6238): the second step, or the confirmation of a new TOTP set-up',
      body: body({ code: { type: 'string', pattern: '^[0-9]{6}$' } }),
      response: answers({ 200: session }, 403, 429, ...BODY_ERRORS),
    },
    totpSetup: {
      tags: SIGN_IN,
      summary: 'A new TOTP secret to scan (confirmed by a code before it counts)',
      response: answers(
        { 200: object({ secret: str, uri: { type: 'string', description: 'otpauth:// URI for a QR code' } }) },
        403,
      ),
    },
    linkPeek: {
      tags: SIGN_IN,
      summary: 'What a one-time link is for (without using it)',
      params: tokenParams,
      response: answers(
        {
          200: object({
            kind: { enum: ['invitation', 'password_reset'] },
            email: str,
            name: str,
            role,
            expires_at: dateTime,
          }),
        },
        410,
        422,
      ),
    },
    linkUse: {
      tags: SIGN_IN,
      summary:
        'Use a one-time link: set the password (at least 12 characters); every other session of the account ends',
      params: tokenParams,
      body: body({ password: newPassword, name: { type: 'string', minLength: 1, maxLength: 200 } }, ['password']),
      response: answers({ 200: withFactors }, 410, ...BODY_ERRORS),
    },
    methods: {
      tags: SIGN_IN,
      summary: 'How one may sign in here besides the password: whether single sign-on is configured',
      response: { 200: object({ sso: { type: 'boolean' } }) },
    },
    ssoStart: {
      tags: SIGN_IN,
      summary: 'Single sign-on: redirects to the OpenID Provider (404 when none is configured)',
      response: { 302: { type: 'null' }, 404: answers({})[401] },
    },
    ssoCallback: {
      tags: SIGN_IN,
      summary:
        'Where the provider sends the browser back: redirects to the console, signed in or with #/sign-in?sso_error=<reason>',
      querystring: { type: 'object', properties: { code: str, state: str, iss: str, error: str } },
      response: { 302: { type: 'null' }, 404: answers({})[401] },
    },
    signOut: { tags: SIGN_IN, summary: 'End this session', response: { 204: { type: 'null' }, 403: answers({})[401] } },
  };
  const passkey = {
    options: {
      tags: SIGN_IN,
      summary: "A passkey's challenge for the second step, naming the account's passkeys",
      response: answers({ 200: webauthnOptions('Request options') }, 403),
    },
    signIn: {
      tags: SIGN_IN,
      summary: 'A passkey (WebAuthn assertion): the second step',
      body: body({ response: credentialJson }),
      response: answers({ 200: session }, 403, ...BODY_ERRORS),
    },
    registerOptions: {
      tags: SIGN_IN,
      summary: 'A challenge to add a passkey (while enrolling at a first sign-in, or signed in)',
      response: answers({ 200: webauthnOptions('Creation options') }, 403),
    },
    register: {
      tags: SIGN_IN,
      summary: 'Add a passkey (WebAuthn attestation); while enrolling, this signs in',
      body: body({ response: credentialJson, name: { type: 'string', minLength: 1, maxLength: 100 } }),
      response: answers({ 200: session }, 403, ...BODY_ERRORS),
    },
  };
  return { session, auth, passkey };
}

// The manager's: its roles and the role matrix's permissions.
const managerSignIn = signInSchemas({
  account: {
    id: str,
    name: str,
    role,
    partner_ids: { type: 'array', items: str },
    agent_id: nullable('string'),
    method: str,
  },
  role,
  permissions: PERMISSIONS,
});
export const authSchemas = managerSignIn.auth;
export const passkeySchemas = managerSignIn.passkey;

export const accountSchemas = {
  list: {
    tags: ACCOUNTS,
    summary: 'Every account',
    response: answers({ 200: object({ items: { type: 'array', items: account } }) }),
  },
  show: { tags: ACCOUNTS, summary: 'One account', params: idParams, response: answers({ 200: account }, ...ID_ERRORS) },
  invite: {
    tags: ACCOUNTS,
    summary: 'Invite a person: an account with a role and a one-time link (24 h, shown once) to set a password',
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
    response: answers({ 201: object({ account, invitation: link }) }, 409, ...BODY_ERRORS),
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
    summary: 'A new one-time link: an invitation again, or a password reset (24 h, shown once)',
    params: idParams,
    response: answers(
      {
        201: object({
          kind: { enum: ['invitation', 'password_reset'] },
          ...(link.properties as Record<string, unknown>),
        }),
      },
      ...ID_ERRORS,
      409,
    ),
  },
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
    summary: 'Change your password: every other session ends, this one gets a new id',
    body: body({ current_password: password, new_password: newPassword }),
    response: answers({ 200: managerSignIn.session }, 409, ...BODY_ERRORS),
  },
  signOutEverywhere: {
    tags: ACCOUNTS,
    summary: 'End every session of your account',
    response: answers({ 204: { type: 'null' } }, 409),
  },
};

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
