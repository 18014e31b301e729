import { join } from 'node:path';
import { freePort } from '../support/free-port';
import { opsTools } from '../support/ops-tools';
import { servicesOf } from '../support/manager-services';
import { sdkPartnerEnv } from '../support/sdk-partners';
import { runDocExample } from '../support/sdk-quickstarts';
import { expectPassed, runCommand, SDKS, type Run } from '../support/sdk-runs';
import { startTestApp, type TestApp } from '../support/test-app';

// Each partner SDK's own tests (sdks/<language>/), run by that language's test runner against this
// running app with partners of their own: sending, replays, a duplicate, refusals, a 429 waited out,
// the status lookup, and callbacks received and verified by a server in that language, during a key
// rotation too. The languages run side by side, so their waits overlap.
const TIGHT_FREE_IN_MS = 15_000;
let app: TestApp;
const runs: Record<string, Run> = {};

const languages: Record<string, () => [string, string[], string]> = {
  typescript: () => [
    process.execPath,
    [require.resolve('jest/bin/jest'), '--ci', '--runInBand', '--config', 'jest.config.cjs'],
    join(SDKS, 'typescript'),
  ],
  // The standard library's unittest: the package needs nothing else, and neither do its tests.
  python: () => ['python3', ['-m', 'unittest', '-v', 'tests.test_offline', 'tests.test_live'], join(SDKS, 'python')],
  // Debian's phpunit (scripts/services/tools.sh), with the package's PSR-4 autoloading (tests/bootstrap.php).
  php: () => [opsTools().PHPUNIT_BIN, [], join(SDKS, 'php')],
};

beforeAll(async () => {
  app = await startTestApp();
  // The TypeScript package as it is published (dist/), for its quickstart, and its tests type-checked.
  const tsc = join(SDKS, '..', 'node_modules', '.bin', 'tsc');
  for (const project of ['tsconfig.json', 'tsconfig.test.json'])
    expectPassed(await runCommand(tsc, ['-p', project], { cwd: join(SDKS, 'typescript') }));
  await Promise.all(
    Object.entries(languages).map(async ([name, command]) => {
      const env = await sdkPartnerEnv(app, await freePort(), TIGHT_FREE_IN_MS);
      const [bin, args, cwd] = command();
      runs[name] = await runCommand(bin, args, { cwd, env: { ...env, PYTHONPATH: join(SDKS, 'python', 'src') } });
    }),
  );
}, 120_000);

afterAll(async () => {
  await app?.destroy();
});

it.each(Object.keys(languages))('%s: the SDK passes its live tests', (name) => {
  expectPassed(runs[name]);
});

it('the Python package is typed throughout (mypy --strict)', async () => {
  expectPassed(await runCommand(opsTools().MYPY_BIN, ['--strict', 'src/lead_intake'], { cwd: join(SDKS, 'python') }));
});

// The quickstarts of docs/partners.md, each run as the page shows it with a partner of its own, then
// that language's reporting example, which finds the quickstart's lead.
it.each(['TypeScript', 'Python', 'PHP'])(
  'the %s quickstart and reporting example of docs/partners.md run as written',
  async (language) => {
    const { secrets } = await servicesOf(app.runtime).partners.create({ name: `quickstart-${language}` });
    const env = {
      LEAD_INTAKE_URL: `${app.url}/api`,
      LEAD_INTAKE_API_KEY: secrets.api_key,
      LEAD_INTAKE_HMAC_SECRET: secrets.hmac_secret,
    };
    const run = await runDocExample(language, 'quickstart', env);
    expectPassed(run);
    expect(run.output).toMatch(/^accepted le-\d+\nstatus new\n$/);
    const reporting = await runDocExample(language, 'reporting', env);
    expectPassed(reporting);
    expect(reporting.output).toMatch(
      /^1 on the first page, more: no\naff-100\d new \+44 79\*\* \*\*\*\d{3}\ntoday: \d+ received, \d+ accepted\n$/,
    );
  },
);
