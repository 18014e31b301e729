import { parseSsoConfig, type SsoConfig } from '../../src/shared/config/sso-config';
import { PENDING_MAX_AGE_MS, SingleSignOn, SsoError, type SsoFailure, type SsoOptions } from '../../src/identity/sso';
import {
  abortAtProvider,
  jwtClaims,
  redeemCode,
  resignedByStranger,
  signInAtProvider,
  startOidcProvider,
  tamperTokenAnswer,
  withClaims,
  type OidcProviderProcess,
  type OidcTestClient,
} from '../support/oidc-provider';

// Single sign-on against a real OpenID Provider (oidc-provider in a child process): a sign-in that
// comes back as it should gives an identity and a role; every other answer is refused with a reason.
const client: OidcTestClient = {
  client_id: 'lead-intake-managers',
  client_secret: 'a-client-secret-for-tests-only-0123456789',
  redirect_uris: ['http://127.0.0.1:9/manager/sso/callback'],
};
const accounts = [
  { sub: 'ada', email: 'ada@example.com', name: 'Ada Lovelace', groups: ['analysts', 'lead-owners', 'staff'] },
  { sub: 'bob', email: 'bob@example.com', name: 'Bob', groups: ['staff'] },
];

let provider: OidcProviderProcess;
let other: OidcProviderProcess;
let userinfoOnly: OidcProviderProcess;

beforeAll(async () => {
  [provider, other, userinfoOnly] = await Promise.all([
    startOidcProvider({ clients: [client], accounts }),
    startOidcProvider({ clients: [client], accounts }),
    startOidcProvider({ clients: [client], accounts, groupsInUserinfo: true }),
  ]);
});
afterAll(async () => {
  await Promise.all([provider, other, userinfoOnly].filter(Boolean).map((p) => p.stop()));
});

function configFor(issuer: string): SsoConfig {
  return parseSsoConfig({
    SSO_ISSUER: issuer,
    SSO_CLIENT_ID: client.client_id,
    SSO_CLIENT_SECRET: client.client_secret,
    SSO_REDIRECT_URL: client.redirect_uris[0],
    SSO_SCOPES: 'openid email profile groups',
    SSO_ROLE_MAP: 'lead-owners=owner,lead-admins=admin,analysts=analyst',
  })!;
}

function sso(issuer = provider.issuer, opts: SsoOptions = {}): Promise<SingleSignOn> {
  return SingleSignOn.discover(configFor(issuer), { allowHttp: true, ...opts });
}

async function refusal(finishing: Promise<unknown>): Promise<SsoFailure> {
  const err = await finishing.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof SsoError)) throw new Error(`expected an SsoError, got ${String(err)}`);
  expect(err.message).not.toMatch(/code=|eyJ/); // neither a code nor a token in the message
  return err.reason;
}

it('signs a user in: issuer, subject, email, name, and the most powerful role their groups map to', async () => {
  const sign = await sso();
  const { url, pending } = await sign.start();
  const authorize = new URL(url);
  expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authorize.searchParams.get('code_challenge')).not.toBe(pending.codeVerifier);
  const callback = await signInAtProvider(url, 'ada');
  expect(callback.searchParams.get('state')).toBe(pending.state);
  await expect(sign.finish(callback, pending)).resolves.toEqual({
    issuer: provider.issuer,
    subject: 'ada',
    email: 'ada@example.com',
    name: 'Ada Lovelace',
    role: 'owner',
    // The development provider's login names no method (amr) and no level (acr).
    authentication: { amr: [], acr: null },
  });
});

it('gives no role to a user whose groups map to none', async () => {
  const sign = await sso();
  const { url, pending } = await sign.start();
  const identity = await sign.finish(await signInAtProvider(url, 'bob'), pending);
  expect(identity).toMatchObject({ subject: 'bob', role: null });
});

it('reads the role claim from userinfo when the ID token leaves it out', async () => {
  const sign = await sso(userinfoOnly.issuer);
  const { url, pending } = await sign.start();
  const callback = await signInAtProvider(url, 'ada');
  expect(await sign.finish(callback, pending)).toMatchObject({ subject: 'ada', role: 'owner' });
});

it('refuses a callback whose state was tampered with', async () => {
  const sign = await sso();
  const { url, pending } = await sign.start();
  const callback = await signInAtProvider(url, 'ada');
  callback.searchParams.set('state', `${pending.state}x`);
  expect(await refusal(sign.finish(callback, pending))).toBe('state_mismatch');
});

it('refuses a callback from another sign-in: its state, its nonce, its verifier', async () => {
  const sign = await sso();
  const first = await sign.start();
  const second = await sign.start();
  const callback = await signInAtProvider(first.url, 'ada');
  expect(await refusal(sign.finish(callback, second.pending))).toBe('state_mismatch');
  // The state forged to match, the nonce of the other sign-in: the ID token is not for this one.
  const otherNonce = { ...first.pending, nonce: second.pending.nonce };
  expect(await refusal(sign.finish(callback, otherNonce))).toBe('nonce_mismatch');
  // The other sign-in's PKCE verifier: the provider refuses the code (and burns it).
  const again = await sign.start();
  const callback2 = await signInAtProvider(again.url, 'ada');
  const otherVerifier = { ...again.pending, codeVerifier: second.pending.codeVerifier };
  expect(await refusal(sign.finish(callback2, otherVerifier))).toBe('exchange_failed');
});

it('refuses the provider answering with an error (the user cancelled)', async () => {
  const sign = await sso();
  const { url, pending } = await sign.start();
  const callback = await abortAtProvider(url);
  expect(callback.searchParams.get('error')).toBe('access_denied');
  const err = await sign.finish(callback, pending).catch((e: SsoError) => e);
  expect(err).toMatchObject({ reason: 'provider_error' });
  expect((err as Error).message).toContain('access_denied');
});

it('refuses a callback from another provider (mix-up), with or without its iss parameter', async () => {
  const sign = await sso();
  const { url, pending } = await sign.start();
  // The same authorization request, answered by another provider that knows the same client id.
  const elsewhere = new URL(url);
  const at = new URL(other.issuer);
  elsewhere.host = at.host;
  const callback = await signInAtProvider(elsewhere.href, 'ada');
  expect(callback.searchParams.get('iss')).toBe(other.issuer);
  expect(await refusal(sign.finish(callback, pending))).toBe('issuer_mismatch');
  callback.searchParams.delete('iss');
  expect(await refusal(sign.finish(callback, pending))).toBe('issuer_mismatch');
});

it('refuses an ID token issued by another provider for the same client and nonce', async () => {
  // An ID token from the other provider, for this very sign-in's nonce.
  let foreign = '';
  const sign = await sso(provider.issuer, {
    fetch: tamperTokenAnswer((body) => ({ ...body, id_token: foreign })),
  });
  const { url, pending } = await sign.start();
  const elsewhere = new URL(url);
  elsewhere.host = new URL(other.issuer).host;
  const otherCallback = await signInAtProvider(elsewhere.href, 'ada');
  const answer = await redeemCode(other.issuer, client, otherCallback.searchParams.get('code')!, pending.codeVerifier);
  foreign = answer.id_token as string;
  expect(jwtClaims(foreign)).toMatchObject({ iss: other.issuer, aud: client.client_id, nonce: pending.nonce });
  const callback = await signInAtProvider(url, 'ada');
  expect(await refusal(sign.finish(callback, pending))).toBe('id_token_invalid');
});

it('refuses an ID token whose claims were altered or that another key signed', async () => {
  const raise = (jwt: string) => withClaims(jwt, { ...jwtClaims(jwt), groups: ['lead-owners'] });
  for (const tamper of [raise, resignedByStranger]) {
    const sign = await sso(provider.issuer, {
      fetch: tamperTokenAnswer((body) => ({ ...body, id_token: tamper(body.id_token as string) })),
    });
    const { url, pending } = await sign.start();
    const callback = await signInAtProvider(url, 'bob');
    expect(await refusal(sign.finish(callback, pending))).toBe('id_token_invalid');
  }
});

it('refuses a pending sign-in older than ten minutes', async () => {
  let now = Date.now();
  const sign = await sso(provider.issuer, { now: () => now });
  const { url, pending } = await sign.start();
  const callback = await signInAtProvider(url, 'ada');
  now += PENDING_MAX_AGE_MS + 1;
  expect(await refusal(sign.finish(callback, pending))).toBe('expired');
});

it('refuses a code used a second time', async () => {
  const sign = await sso();
  const { url, pending } = await sign.start();
  const callback = await signInAtProvider(url, 'ada');
  await expect(sign.finish(callback, pending)).resolves.toMatchObject({ subject: 'ada' });
  expect(await refusal(sign.finish(callback, pending))).toBe('exchange_failed');
});

it('will not talk plain http to a provider unless told to', async () => {
  await expect(SingleSignOn.discover(configFor(provider.issuer))).rejects.toThrow(/SSO_ISSUER/);
});
