import type { JsonSchema } from '../shared/schemas';
import { answers, BODY_ERRORS, dateTime, object, str } from '../shared/http/schema-parts';
import { body, email, newPassword, newPasswordRefusal, password, SIGN_IN } from './identity-schema-parts';

// Route schemas of the sign-in steps (session, password, TOTP, passkeys, one-time links, single
// sign-on), built for a realm: the manager's and the portal's differ in who a session names.
const totpCode = { type: 'string', pattern: '^[0-9]{6}$' } as const;
// A link's token travels in the body, never in a path or query a log records.
const linkToken = { type: 'string', minLength: 1, maxLength: 200, description: 'The token after #/link/' } as const;

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
// and the permissions it may hold. The manager's are in manager-sign-in-schemas.ts; the portal's come from its realm.
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
      body: body({ code: totpCode }),
      response: answers({ 200: session }, 403, 429, ...BODY_ERRORS),
    },
    reauthenticate: {
      tags: SIGN_IN,
      summary:
        'Confirm it is you before adding or replacing a second factor (5 minutes, one change): the current password, and a TOTP code or a passkey answer to auth/passkey/options when the account has one; throttled as a sign-in',
      body: body({ current_password: password, code: totpCode, passkey: credentialJson }, ['current_password']),
      response: answers({ 200: session }, 403, 429, ...BODY_ERRORS),
    },
    totpSetup: {
      tags: SIGN_IN,
      summary:
        'A new TOTP secret to scan (confirmed by a code before it counts; it replaces the one the account has). Signed in: after auth/reauthenticate',
      response: answers(
        { 200: object({ secret: str, uri: { type: 'string', description: 'otpauth:// URI for a QR code' } }) },
        403,
      ),
    },
    linkPeek: {
      tags: SIGN_IN,
      summary: 'What a one-time link is for (without using it)',
      body: body({ token: linkToken }),
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
        ...BODY_ERRORS,
      ),
    },
    linkUse: {
      tags: SIGN_IN,
      summary:
        'Use a one-time link: set the password (at least 12 characters, not a common one); every other session and link of the account ends; throttled as a sign-in',
      body: body({ token: linkToken, password: newPassword, name: { type: 'string', minLength: 1, maxLength: 200 } }, [
        'token',
        'password',
      ]),
      response: { ...answers({ 200: withFactors }, 410, 429, ...BODY_ERRORS), 422: newPasswordRefusal('password') },
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
      summary: "A passkey's challenge for the second step or for auth/reauthenticate, naming the account's passkeys",
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
      summary:
        'A challenge to add a passkey (while enrolling at a first sign-in, or signed in after auth/reauthenticate)',
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
