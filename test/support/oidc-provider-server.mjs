// A real OpenID Provider (panva's oidc-provider, OpenID Certified) for the single sign-on tests: one
// process, one issuer http://127.0.0.1:<port>, clients and accounts from the environment.
//   PORT                     port to listen on (0: any free one; the issuer names the one taken)
//   OIDC_CLIENTS             JSON [{ client_id, client_secret, redirect_uris }]
//   OIDC_ACCOUNTS_FILE       a file of JSON [{ sub, email, name, groups, email_verified }], read at every sign-in
//                            (a test changes a person's groups between sign-ins); email_verified: null omits it
//   OIDC_GROUPS_IN_USERINFO  "1": claims asked for by scope go to userinfo only, as the spec has it,
//                            so the relying party must fetch the role claim from there
// Prints "ready <issuer>" once it listens. Sign-in uses the provider's own development interactions
// (a login form that takes any login name as the subject, then a consent form).
import { createServer } from 'node:http';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Provider from 'oidc-provider';

const clients = JSON.parse(process.env.OIDC_CLIENTS ?? '[]');
const accountsNow = () =>
  new Map(JSON.parse(readFileSync(process.env.OIDC_ACCOUNTS_FILE, 'utf8')).map((a) => [a.sub, a]));
const groupsInUserinfo = process.env.OIDC_GROUPS_IN_USERINFO === '1';

const server = createServer();
await new Promise((resolve, reject) => {
  server.once('error', reject);
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', resolve);
});
const issuer = `http://127.0.0.1:${server.address().port}`;

// A signing key of this instance's own: the package's development keys are the same in every process,
// and a test shows that a token signed by another provider is refused.
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signingKey = {
  ...privateKey.export({ format: 'jwk' }),
  kid: randomBytes(8).toString('hex'),
  alg: 'RS256',
  use: 'sig',
};

const provider = new Provider(issuer, {
  jwks: { keys: [signingKey] },
  clients: clients.map((c) => ({
    client_id: c.client_id,
    client_secret: c.client_secret,
    redirect_uris: c.redirect_uris,
    response_types: ['code'],
    grant_types: ['authorization_code'],
    token_endpoint_auth_method: 'client_secret_basic',
  })),
  pkce: { required: () => true },
  scopes: ['openid', 'email', 'profile', 'groups'],
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
  // false: claims granted by scope go into the ID token too (as many enterprise providers do).
  conformIdTokenClaims: groupsInUserinfo,
  features: { devInteractions: { enabled: true }, userinfo: { enabled: true } },
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  async findAccount(_ctx, sub) {
    if (!accountsNow().has(sub)) return undefined;
    return {
      accountId: sub,
      async claims() {
        const account = accountsNow().get(sub);
        const verified = account.email_verified === undefined ? true : account.email_verified;
        return {
          sub,
          email: account.email,
          ...(verified === null ? {} : { email_verified: verified }),
          name: account.name,
          groups: account.groups ?? [],
        };
      },
    };
  },
});
// Errors the provider renders (bad requests, unknown clients) on stderr, for a failing test to show.
provider.on('server_error', (_ctx, err) => process.stderr.write(`server_error ${err.message}\n`));

server.on('request', provider.callback());
process.stdout.write(`ready ${issuer}\n`);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
