import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ManagerClient } from '../support/manager-client';
import { portalSession } from '../support/portal-client';
import { contractRunOfFile, expectNoFinding, RUN_TIMEOUT_MS } from '../support/schemathesis';

// The partner portal's OpenAPI document against the server, by Schemathesis (test/support/schemathesis.ts).
// The portal's test sends are left out, as the manager's test-callback is.
const EXAMPLES = '25';

const contract = contractRunOfFile();

it(
  "the portal document tells the truth, every request with a partner admin's session and its CSRF token",
  async () => {
    const { app, workDir } = contract();
    const created = await new ManagerClient(app.url).post<{ id: string }>('/api/affiliates', {
      name: 'portal-contract',
    });
    expect(created.status).toBe(201);
    const admin = await portalSession(app.url, created.body.id);
    // The session cookie as the document's own security scheme, so Schemathesis knows it for the
    // auth it leaves out on purpose; the CSRF token goes with every request.
    const config = join(workDir, 'portal.toml');
    writeFileSync(config, '[auth.openapi.portalSession]\napi_key = "${PORTAL_SESSION}"\n');
    const session = admin.client.cookie!.slice('lit_portal='.length);
    // The sign-in steps are fuzzed without the session (they would change or end it), in a run of their own;
    // signing out everywhere would end it, and has its tests (portal-own-account).
    expectNoFinding(
      await contract().schemathesis(
        [
          `${app.url}/portal/api/openapi.json`,
          '-n',
          EXAMPLES,
          '-H',
          `X-CSRF-Token: ${admin.client.csrf}`,
          '--exclude-path-regex',
          '^/portal/api/(auth/|test-|me/sign-out-everywhere)',
        ],
        { SCHEMATHESIS_HOOKS: 'portal_rules', PORTAL_SESSION: session },
        config,
      ),
    );
    expectNoFinding(
      await contract().schemathesis(
        [`${app.url}/portal/api/openapi.json`, '-n', EXAMPLES, '--include-path-regex', '^/portal/api/auth/'],
        { SCHEMATHESIS_HOOKS: 'portal_rules' },
      ),
    );
    // The session lasted the whole run: nothing above was refused for want of it.
    expect((await admin.client.get('/portal/api/session')).body).toMatchObject({ stage: 'signed_in' });
  },
  2 * RUN_TIMEOUT_MS + 60_000,
);
