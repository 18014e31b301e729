import { spawn } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { CustomFetch } from 'openid-client';

// A real OpenID Provider (oidc-provider-server.mjs) in a child process, and a browser stand-in that signs in
// at it over plain HTTP: the single sign-on tests exercise openid-client against the real thing.

export interface OidcTestClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

export interface OidcTestAccount {
  sub: string;
  email: string;
  name: string;
  groups: string[];
  // Absent: true; null: the provider sends no email_verified claim.
  email_verified?: boolean | null;
}

export interface OidcProviderProcess {
  issuer: string;
  // The people the provider knows from the next sign-in on (a person's groups changed at the provider).
  setAccounts(accounts: OidcTestAccount[]): void;
  stop(): Promise<void>;
}

const SCRIPT = join(__dirname, 'oidc-provider-server.mjs');

// The service's settings for signing in at `provider` as `client` (its first redirect URI the callback).
export const ssoSettings = (provider: OidcProviderProcess, client: OidcTestClient): Record<string, string> => ({
  SSO_ISSUER: provider.issuer,
  SSO_CLIENT_ID: client.client_id,
  SSO_CLIENT_SECRET: client.client_secret,
  SSO_REDIRECT_URL: client.redirect_uris[0]!,
  SSO_SCOPES: 'openid email profile groups',
});

// groupsInUserinfo: the provider keeps scope claims (groups) out of the ID token, in userinfo only.
export async function startOidcProvider(opts: {
  clients: OidcTestClient[];
  accounts: OidcTestAccount[];
  groupsInUserinfo?: boolean;
}): Promise<OidcProviderProcess> {
  const accountsFile = join(mkdtempSync(join(tmpdir(), 'oidc-accounts-')), 'accounts.json');
  const setAccounts = (accounts: OidcTestAccount[]) => writeFileSync(accountsFile, JSON.stringify(accounts));
  setAccounts(opts.accounts);
  const child = spawn(process.execPath, [SCRIPT], {
    env: {
      ...process.env,
      PORT: '0',
      OIDC_CLIENTS: JSON.stringify(opts.clients),
      OIDC_ACCOUNTS_FILE: accountsFile,
      OIDC_GROUPS_IN_USERINFO: opts.groupsInUserinfo ? '1' : '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  child.stderr.on('data', (d: Buffer) => stderr.push(d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const issuer = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`OpenID Provider did not start: ${stderr.join('')}`)), 20_000);
    exited.then(() => reject(new Error(`OpenID Provider exited: ${stderr.join('')}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const ready = /^ready (\S+)$/.exec(line);
      if (ready) {
        clearTimeout(timer);
        resolve(ready[1]!);
      }
    });
  });
  return {
    issuer,
    setAccounts,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

// Signs `sub` in at the provider (its development login form, then consent) and returns where the
// provider sends the browser back to: the redirect URI with code, state and iss. Not followed.
export function signInAtProvider(authorizeUrl: string, sub: string): Promise<URL> {
  return browse(authorizeUrl, (prompt): Answer =>
    prompt === 'login' ? { prompt, login: sub, password: 'any' } : { prompt },
  );
}

// The user presses "cancel" at the provider's login: the provider answers error=access_denied.
export function abortAtProvider(authorizeUrl: string): Promise<URL> {
  return browse(authorizeUrl, () => 'abort');
}

type Answer = Record<string, string> | 'abort';

async function browse(authorizeUrl: string, answer: (prompt: string) => Answer): Promise<URL> {
  const provider = new URL(authorizeUrl).origin;
  const jar = new Map<string, string>();
  let request: { url: string; form?: Record<string, string> } = { url: authorizeUrl };
  for (let step = 0; step < 20; step += 1) {
    const res = await fetch(request.url, {
      method: request.form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(request.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: request.form ? new URLSearchParams(request.form).toString() : undefined,
    });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const at = pair!.indexOf('=');
      const [name, value] = [pair!.slice(0, at).trim(), pair!.slice(at + 1).trim()];
      if (value) jar.set(name, value);
      else jar.delete(name);
    }
    if (res.status >= 300 && res.status < 400) {
      const location = new URL(res.headers.get('location')!, request.url);
      await res.body?.cancel();
      if (location.origin !== provider) return location;
      request = { url: location.href };
      continue;
    }
    const html = await res.text();
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
    if (res.status !== 200 || !prompt)
      throw new Error(`provider answered ${res.status} at ${request.url}: ${html.slice(0, 500)}`);
    const reply = answer(prompt);
    request = reply === 'abort' ? { url: `${request.url}/abort` } : { url: request.url, form: reply };
  }
  throw new Error('sign-in at the provider did not come back to the client');
}

// A fetch for SingleSignOn that passes every request to the provider and lets a test rewrite the token
// endpoint's JSON answer (the ID token in particular) on its way back.
export function tamperTokenAnswer(
  rewrite: (body: Record<string, unknown>) => Record<string, unknown> | Promise<Record<string, unknown>>,
): CustomFetch {
  return async (url, options) => {
    const res = await fetch(url, options as RequestInit);
    if (new URL(url).pathname !== '/token' || !res.ok) return res;
    const body = await rewrite((await res.json()) as Record<string, unknown>);
    return new Response(JSON.stringify(body), { status: res.status, headers: { 'content-type': 'application/json' } });
  };
}

// The JWT's claims (unverified: for tests that alter them).
export function jwtClaims(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
}

// The same JWT with its claims replaced and the provider's signature kept (now invalid for them).
export function withClaims(jwt: string, claims: Record<string, unknown>): string {
  const [header, , signature] = jwt.split('.');
  return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
}

// The same header and claims, signed RS256 by a key the provider never had (the header's kid kept).
export function resignedByStranger(jwt: string): string {
  const [header, payload] = jwt.split('.');
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signature = sign('sha256', Buffer.from(`${header}.${payload}`), privateKey).toString('base64url');
  return `${header}.${payload}.${signature}`;
}

// The token endpoint's answer for a code, fetched as the client would (to take an ID token elsewhere).
export async function redeemCode(
  issuer: string,
  client: OidcTestClient,
  code: string,
  codeVerifier: string,
): Promise<Record<string, unknown>> {
  const res = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      code_verifier: codeVerifier,
      redirect_uri: client.redirect_uris[0]!,
    }).toString(),
  });
  if (!res.ok) throw new Error(`token endpoint answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}
