import { freePort } from './free-port';
import { startOidcProvider, type OidcProviderProcess } from './oidc-provider';
import { startTestApp, type TestApp } from './test-app';

type Person = Parameters<typeof startOidcProvider>[0]['accounts'][number];

// A manager app whose single sign-on goes to a real OpenID Provider started for it, with one
// client whose redirect is the app's callback; `env` adds to (or overrides) the SSO settings.
export async function startSsoApp(opts: {
  clientId: string;
  people: Person[];
  roleMap: string;
  env?: Record<string, string>;
}): Promise<{ app: TestApp; provider: OidcProviderProcess }> {
  const port = await freePort();
  const redirect = `http://127.0.0.1:${port}/api/auth/sso/callback`;
  const client = {
    client_id: opts.clientId,
    client_secret: `${opts.clientId}-sso-client-secret-0123456789`,
    redirect_uris: [redirect],
  };
  const provider = await startOidcProvider({ clients: [client], accounts: opts.people });
  try {
    const app = await startTestApp({
      ROLE: 'ingress',
      HTTP_PORT: String(port),
      SSO_ISSUER: provider.issuer,
      SSO_CLIENT_ID: client.client_id,
      SSO_CLIENT_SECRET: client.client_secret,
      SSO_REDIRECT_URL: redirect,
      SSO_SCOPES: 'openid email profile groups',
      SSO_ROLE_MAP: opts.roleMap,
      ...opts.env,
    });
    return { app, provider };
  } catch (err) {
    await provider.stop();
    throw err;
  }
}
