import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManagerClient } from '../support/manager-client';
import { PartnerClient, type PartnerCredentials } from '../support/partner-client';
import { freePrivatePort, runScript } from '../support/private-service';
import { startTestApp, type TestApp } from '../support/test-app';

// What CI does to a clone: `npm test` starts the servers from the clone, then the clone is deleted.
// Servers left behind keep the ports with their files gone; `scripts/services.sh up` from another
// checkout, on the same ports, must replace them, and a lead must then go through the new stack.
// Everything here runs on free ports of its own: the shared servers are never touched. The clone and
// the run dir live under the test run's private root (scripts/test.sh), which stops whatever is left
// there when the run ends.
const PRIVATE_ROOT = process.env.LEADS_PRIVATE_ROOT ?? tmpdir();
const ROOT = join(__dirname, '..', '..');
const SERVICES = ['redis', 'ferretdb', 'kafka', 'registry', 'mailpit'];
const servicesSh = (checkout: string) => join(checkout, 'scripts', 'services.sh');

let ports: Record<string, string>;
let clone: string;
let runDir: string;
let orphans: Record<string, number>;
let app: TestApp | undefined;

// The checkout's servers, on our ports, with no run dir or started-list inherited from the caller.
const envFor = (leadsRun?: string) => ({ ...ports, LEADS_RUN: leadsRun, LEADS_STARTED: undefined });

// A process still serving from the deleted clone: its environment, arguments or working directory name it.
function servesClone(pid: number): boolean {
  try {
    const seen = [
      readFileSync(`/proc/${pid}/environ`, 'latin1'),
      readFileSync(`/proc/${pid}/cmdline`, 'latin1'),
      readlinkSync(`/proc/${pid}/cwd`),
    ];
    return seen.some((s) => s.includes(clone));
  } catch {
    return false;
  }
}

beforeAll(async () => {
  const picked: number[] = [];
  while (picked.length < 7) picked.push(await freePrivatePort(picked));
  const [kafka, controller, mongo, redis, registry, smtp, mailpit] = picked;
  ports = {
    KAFKA_PORT: `${kafka}`,
    KAFKA_CONTROLLER_PORT: `${controller}`,
    MONGO_PORT: `${mongo}`,
    REDIS_PORT: `${redis}`,
    REGISTRY_PORT: `${registry}`,
    SMTP_PORT: `${smtp}`,
    MAILPIT_PORT: `${mailpit}`,
  };
  clone = mkdtempSync(join(PRIVATE_ROOT, 'orphan-clone-'));
  runDir = mkdtempSync(join(PRIVATE_ROOT, 'orphan-run-'));
  try {
    execFileSync('git', ['clone', '-q', ROOT, clone], { stdio: 'pipe' });
  } catch {
    cpSync(join(ROOT, 'scripts'), join(clone, 'scripts'), { recursive: true }); // not a git checkout: its scripts are enough
  }
  await runScript(servicesSh(clone), ['up'], envFor(), clone);
  orphans = Object.fromEntries(SERVICES.map((s) => [s, Number(readFileSync(join(clone, '.run', `${s}.pid`), 'utf8'))]));
  rmSync(clone, { recursive: true, force: true });
}, 180_000);

afterAll(async () => {
  await app?.stop();
  await runScript(servicesSh(ROOT), ['down'], envFor(runDir)).catch(() => undefined);
  // Whatever the clone started and up did not replace (a failed run): ours, so stop it here.
  for (const pid of Object.values(orphans ?? {}).filter(servesClone)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  rmSync(runDir, { recursive: true, force: true });
  // An `up` that failed in beforeAll left the clone, and whatever it had started, running from it.
  if (existsSync(clone)) {
    await runScript(servicesSh(ROOT), ['down-under', clone], {}).catch(() => undefined);
    rmSync(clone, { recursive: true, force: true });
  }
}, 60_000);

it('status names each server left behind, with its pid and the deleted checkout, and exits non-zero', async () => {
  const status = await runScript(servicesSh(ROOT), ['status'], envFor(runDir)).then(
    () => null,
    (err: { stdout: string }) => err.stdout,
  );
  expect(status).not.toBeNull();
  for (const s of SERVICES) {
    expect(status).toMatch(new RegExp(`^${s} +\\d+ +${orphans[s]} +orphaned +deleted: ${clone}$`, 'm'));
  }
});

it('up from another checkout replaces them on the same ports, and status then reports it healthy', async () => {
  const { stderr } = await runScript(servicesSh(ROOT), ['up'], envFor(runDir));
  for (const s of SERVICES) {
    expect(stderr).toContain(`held by pid ${orphans[s]}, left behind by deleted: ${clone}; stopping it`);
    expect(servesClone(orphans[s]!)).toBe(false);
  }
  const { stdout } = await runScript(servicesSh(ROOT), ['status'], envFor(runDir));
  for (const s of SERVICES) {
    const pid = readFileSync(join(runDir, `${s}.pid`), 'utf8').trim();
    expect(stdout).toMatch(new RegExp(`^${s} +\\d+ +${pid} +healthy +${runDir}$`, 'm'));
  }
}, 180_000);

it('a lead goes through the new stack: partner created by the manager API, signed lead accepted', async () => {
  const { stdout } = await runScript(servicesSh(ROOT), ['env'], envFor(runDir));
  const serviceEnv = Object.fromEntries(
    stdout
      .trim()
      .split('\n')
      .map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]),
  );
  // Mail stays off: this lead needs no relay.
  app = await startTestApp({ ...serviceEnv, SMTP_URL: '' });
  const created = await new ManagerClient(app.url).post<PartnerCredentials & { id: string }>('/api/affiliates', {
    name: 'After the orphans',
  });
  expect(created.status).toBe(201);
  const res = await new PartnerClient(app.url, created.body).submitLead({
    phone: '+447911123456',
    country: 'GB',
    external_id: 'orphan-drill-1',
  });
  expect(res).toMatchObject({ status: 200, body: { status: 'accepted', reason: null } });
}, 120_000);
