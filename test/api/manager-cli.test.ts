import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestApp, type TestApp } from '../support/test-app';
import { MANAGER_TOKEN } from '../support/test-config';

// The operator's command line, run as `npm run manager` runs it (tsx src/manager/cli.ts), against
// a running service.
const ROOT = join(__dirname, '..', '..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const CLI = join(ROOT, 'src', 'manager', 'cli.ts');

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'ingress' });
});

afterAll(async () => {
  await app?.destroy();
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(args: string[], token: string | null = MANAGER_TOKEN): Promise<Run> {
  const { MANAGER_TOKEN: _inherited, ...inherited } = process.env;
  const env = { ...inherited, MANAGER_URL: app.url, ...(token === null ? {} : { MANAGER_TOKEN: token }) };
  try {
    const { stdout, stderr } = await promisify(execFile)(TSX, [CLI, ...args], { env, cwd: ROOT });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const json = (run: Run) => JSON.parse(run.stdout) as Record<string, unknown>;

it('creates, shows, changes and rotates a partner, printing JSON', async () => {
  const created = await cli([
    'create-partner',
    '--name',
    'Shell Co',
    '--callback-url',
    'https://shell.example/cb',
    '--events',
    'lead.accepted',
    '--intake-per-minute',
    '90',
  ]);
  expect(created.code).toBe(0);
  const partner = json(created);
  expect(partner).toMatchObject({
    name: 'Shell Co',
    callback_url: 'https://shell.example/cb',
    callback_events: ['lead.accepted'],
    rate_limits: { intake_per_minute: 90 },
    api_key: expect.stringMatching(/^lk_/),
    hmac_secret: expect.stringMatching(/^hs_/),
    callback_secret: expect.stringMatching(/^cs_/),
  });
  const id = partner.id as string;

  const shown = await cli(['show-partner', id]);
  expect(json(shown)).toMatchObject({ id, name: 'Shell Co' });
  expect(shown.stdout).not.toContain('api_key');

  expect(json(await cli(['update-partner', id, '--callback-url', 'none', '--disabled', 'true']))).toMatchObject({
    callback_url: null,
    disabled: true,
  });
  const listed = json(await cli(['list-partners', '--limit', '5'])) as { items: { id: string }[] };
  expect(listed.items.map((p) => p.id)).toContain(id);

  const rotated = json(await cli(['rotate-key', id, '--secrets', 'callback_secret']));
  expect(Object.keys(rotated).sort()).toEqual(['api_key', 'callback_secret', 'grace_until', 'id', 'key_rotated_at']);
  expect(rotated.api_key).not.toBe(partner.api_key);
});

it('manages agents and reads the audit log', async () => {
  const agent = json(await cli(['create-agent', '--name', 'Eve', '--countries', 'DE,AT', '--languages', 'de']));
  expect(agent).toMatchObject({ name: 'Eve', active: true, countries: ['DE', 'AT'], languages: ['de'] });
  expect(json(await cli(['update-agent', agent.id as string, '--active', 'false']))).toMatchObject({ active: false });
  const agents = json(await cli(['list-agents', '--active', 'false'])) as { items: { id: string }[] };
  expect(agents.items.map((a) => a.id)).toContain(agent.id);
  const audit = json(await cli(['audit-log', '--action', 'agent.update'])) as { items: { target: string }[] };
  expect(audit.items.map((e) => e.target)).toContain(agent.id);
});

it('pages the audit log by cursor, naming the next page on stderr until the last', async () => {
  const created: string[] = [];
  for (const name of ['Page A', 'Page B', 'Page C'])
    created.push(json(await cli(['create-agent', '--name', name])).id as string);
  const seen: string[] = [];
  let args = ['audit-log', '--action', 'agent.create', '--limit', '2'];
  for (let pages = 0; pages < 5; pages++) {
    const run = await cli(args);
    const page = json(run) as { items: { target: string }[]; next_cursor: string | null };
    seen.push(...page.items.map((e) => e.target));
    if (page.next_cursor === null) {
      expect(run.stderr).not.toContain('next page');
      break;
    }
    // A cursor holds '|': the command names it quoted for the shell.
    const next = run.stderr.match(/^next page: npm run manager -- (.+)$/m)![1]!;
    expect(next).toBe(`audit-log --action agent.create --limit 2 --cursor '${page.next_cursor}'`);
    args = ['audit-log', '--action', 'agent.create', '--limit', '2', '--cursor', page.next_cursor];
  }
  // Newest first, each once: the three above, then Eve of the test before.
  expect(seen.slice(0, 3)).toEqual([...created].reverse());
  expect(seen).toHaveLength(4);
});

it('lists leads with their filters, and refuses a bad filter or cursor with exit code 1', async () => {
  expect(
    json(await cli(['leads', '--affiliate-id', 'pa-0000000000000000', '--country', 'GB', '--is-depositor', 'true'])),
  ).toEqual({ items: [], next_cursor: null });
  const lower = await cli(['leads', '--country', 'gb']);
  expect(lower.code).toBe(1);
  expect(JSON.parse(lower.stderr)).toMatchObject({ error: 'invalid_request' });
  const forged = await cli(['leads', '--cursor', 'not-a-cursor']);
  expect(forged.code).toBe(1);
  expect(JSON.parse(forged.stderr)).toMatchObject({ error: 'invalid_request' });
});

it('lists deliveries and reports an API error on stderr with exit code 1', async () => {
  expect(json(await cli(['list-deliveries', '--state', 'dead', '--from', '2026-01-01T00:00:00Z']))).toEqual({
    items: [],
    next_cursor: null,
  });
  const missing = await cli(['retry-delivery', 'dl-000000000000000000000000']);
  expect(missing.code).toBe(1);
  expect(JSON.parse(missing.stderr)).toEqual({ error: 'not_found', message: expect.any(String) });
  const silent = json(await cli(['create-partner', '--name', 'No URL']));
  const conflict = await cli(['test-callback', silent.id as string]);
  expect(conflict.code).toBe(1);
  expect(JSON.parse(conflict.stderr).error).toBe('conflict');
});

it('exits 1 with the 401 body for a wrong token, and 2 with usage for a wrong command', async () => {
  const denied = await cli(['list-partners'], 'wrong-token-0123456789abcdef');
  expect(denied.code).toBe(1);
  expect(JSON.parse(denied.stderr).error).toBe('manager_unauthorized');
  const noToken = await cli(['list-partners'], null);
  expect(noToken.code).toBe(2);
  const unknown = await cli(['launch-rockets']);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain('unknown command "launch-rockets"');
  expect(unknown.stderr).toContain('usage: npm run manager');
});
