import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManagerClient } from '../support/manager-client';
import { opsTools } from '../support/ops-tools';
import { portalSession } from '../support/portal-client';
import { MANAGER_TOKEN } from '../support/test-config';
import { startTestApp, type TestApp } from '../support/test-app';

// Schemathesis, a contract fuzzer nobody here wrote, against every OpenAPI document the service
// serves, with all its checks: any request the document allows that the server refuses, any answer
// the document does not describe, a wrong method answer, an auth not enforced, is a failure.
//
// The service runs without the dispatcher, and test-callback is left out of the run: no request a
// generated callback_url names can leave this machine (the callback paths have tests of their own).
// A replay for a real partner answers its documented 503 command_pending, soon (no dispatcher replies).
// The portal's test sends are left out the same way.
const HOOKS_DIR = join(__dirname, '..', 'contract');
const SEED = process.env.CONTRACT_SEED ?? '20';
// Examples per operation: the whole file stays around two and a half minutes on a shared 2-core machine.
const MANAGER_EXAMPLES = '25';
const PARTNER_EXAMPLES = '60';
const PORTAL_EXAMPLES = '25';

let app: TestApp;
let workDir: string;

beforeAll(async () => {
  app = await startTestApp({
    ROLE: 'ingress,processor',
    CALLBACK_ALLOW_HTTP: 'false',
    CALLBACK_ALLOW_PRIVATE_NETWORKS: 'false',
    MANAGER_COMMAND_TIMEOUT_MS: '200',
    // The fuzzer sends a wrong bearer token to every operation (its auth check); the throttle of unknown
    // tokens would then refuse the right one for the rest of the file. It has tests of its own.
    TOKEN_FAILURES_PER_ADDRESS: '100000',
  });
  workDir = mkdtempSync(join(tmpdir(), 'schemathesis-')); // its caches and reports stay out of the checkout
});

afterAll(async () => {
  await app?.destroy();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

// `configFile`: a schemathesis.toml of the run's own (the portal's session as its document's auth).
function schemathesis(
  args: string[],
  env: Record<string, string> = {},
  configFile?: string,
): Promise<{ code: number; output: string }> {
  const bin = opsTools().SCHEMATHESIS_BIN;
  return new Promise((resolve) => {
    execFile(
      bin,
      [
        ...(configFile ? ['--config-file', configFile] : []),
        'run',
        ...args,
        '-u',
        app.url,
        '-c',
        'all',
        '--seed',
        SEED,
        '--no-color',
      ],
      {
        cwd: workDir,
        env: { ...process.env, PYTHONPATH: HOOKS_DIR, PYTHONDONTWRITEBYTECODE: '1', ...env },
        maxBuffer: 64 * 1024 * 1024,
        timeout: 170_000,
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, output: `${stdout}\n${stderr}` });
      },
    );
  });
}

// On failure the whole Schemathesis report is the message: each finding with its curl to reproduce it.
function expectNoFinding(run: { code: number; output: string }): void {
  if (run.code !== 0)
    throw new Error(
      `Schemathesis found mismatches between the document and the server (exit ${run.code}):\n${run.output}`,
    );
  expect(run.output).toMatch(/\d+ passed/);
}

describe('contract (Schemathesis)', () => {
  it('the manager document tells the truth', async () => {
    expectNoFinding(
      await schemathesis(
        [
          `${app.url}/api/openapi.json`,
          '-H',
          `Authorization: Bearer ${MANAGER_TOKEN}`,
          '-n',
          MANAGER_EXAMPLES,
          '--exclude-path-regex',
          'test-callback',
        ],
        { SCHEMATHESIS_HOOKS: 'manager_rules' },
      ),
    );
  }, 180_000);

  it('the partner document tells the truth, every request signed as a partner signs it', async () => {
    // Made after the manager run, whose fuzzing may rotate or disable any partner it finds.
    const created = await new ManagerClient(app.url).post<{ api_key: string; hmac_secret: string }>('/api/affiliates', {
      name: 'contract-test',
      // The fuzzer sends hundreds of requests a minute; the rate limit has tests of its own.
      rate_limits: { intake_per_minute: 100000, status_per_minute: 100000 },
    });
    expect(created.status).toBe(201);
    const partner = created.body;
    // X-Signature and X-Timestamp are placeholders that the hook replaces on the prepared request.
    expectNoFinding(
      await schemathesis(
        [
          `${app.url}/api/v1/inbound/openapi.json`,
          '-n',
          PARTNER_EXAMPLES,
          '-H',
          `Authorization: Bearer ${partner.api_key}`,
          '-H',
          'X-Signature: sign-me',
          '-H',
          'X-Timestamp: sign-me',
        ],
        { SCHEMATHESIS_HOOKS: 'sign_partner_requests', PARTNER_HMAC_SECRET: partner.hmac_secret },
      ),
    );
  }, 180_000);

  it("the portal document tells the truth, every request with a partner admin's session and its CSRF token", async () => {
    // A partner of its own, made after the manager run (which may disable any partner it finds).
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
      await schemathesis(
        [
          `${app.url}/portal/api/openapi.json`,
          '-n',
          PORTAL_EXAMPLES,
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
      await schemathesis(
        [`${app.url}/portal/api/openapi.json`, '-n', PORTAL_EXAMPLES, '--include-path-regex', '^/portal/api/auth/'],
        { SCHEMATHESIS_HOOKS: 'portal_rules' },
      ),
    );
    // The session lasted the whole run: nothing above was refused for want of it.
    expect((await admin.client.get('/portal/api/session')).body).toMatchObject({ stage: 'signed_in' });
  }, 360_000);
});
