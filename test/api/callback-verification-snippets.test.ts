import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CallbackReceiver, failFirst, type ReceivedCallback } from '../support/callback-receiver';
import { leadEvent, publishLeadEvents } from '../support/lead-events';
import { opsTools } from '../support/ops-tools';
import { startTestApp, type TestApp } from '../support/test-app';
import { servicesOf } from '../support/manager-services';

// The partners' verification snippets, each run by its own language (node, python3,
// php-cli from Debian) against real callbacks from the dispatcher: a first one, its retry (the same
// X-Event-Id), another, a forged body, a wrong secret and a stale attempt. A missing interpreter fails
// the test: nothing is skipped.
const ROOT = join(__dirname, '..', '..');
const DOCS = join(ROOT, 'docs', 'partners');
const RUNNERS = join(__dirname, '..', 'support', 'snippet-runners');
const SNIPPETS = { ts: 'verify-callback.ts', python: 'verify_callback.py', php: 'verify-callback.php' };

let app: TestApp;
let receiver: CallbackReceiver;
let secret: string;
let got: ReceivedCallback[];

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'dispatcher', CALLBACK_RETRY_DELAYS_S: '1,1,1,1' });
  receiver = await new CallbackReceiver().start();
  const created = await servicesOf(app.runtime).partners.create({
    name: 'verifier',
    callback_url: receiver.url('/verifier'),
  });
  secret = created.secrets.callback_secret;
  receiver.route('/verifier', secret, failFirst(1)); // the first callback is answered 500, so it comes again
  const first = leadEvent(created.partner.id);
  await publishLeadEvents(app.runtime, [first]);
  await receiver.waitFor('/verifier', 2);
  await publishLeadEvents(app.runtime, [leadEvent(created.partner.id), leadEvent(created.partner.id)]);
  got = await receiver.waitFor('/verifier', 4);
});

afterAll(async () => {
  await receiver?.stop();
  await app?.destroy();
});

interface Case {
  secret: string;
  headers: Record<string, string>;
  body_base64: string;
  now: number;
}

function caseOf(r: ReceivedCallback, over: { secret?: string; raw?: string; nowOffsetS?: number } = {}): Case {
  const headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]));
  return {
    secret: over.secret ?? secret,
    headers,
    body_base64: Buffer.from(over.raw ?? r.raw, 'utf8').toString('base64'),
    now: Number(headers['x-timestamp']) + (over.nowOffsetS ?? 1),
  };
}

function run(command: string, args: string[], cases: Case[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.on('error', (e) => reject(new Error(`${command} could not run: ${e.message}`)));
    child.on('close', (code) =>
      code === 0 ? resolve(out.trim().split('\n')) : reject(new Error(`${command} exited ${code}: ${err}`)),
    );
    child.stdin.end(cases.map((c) => JSON.stringify(c)).join('\n') + '\n');
  });
}

const interpreters: [string, () => [string, string[]]][] = [
  ['TypeScript (node)', () => [process.execPath, ['--no-warnings', join(RUNNERS, 'runner.mjs')]]],
  ['Python (python3)', () => ['python3', [join(RUNNERS, 'runner.py')]]],
  ['PHP (php-cli)', () => [opsTools().PHP_BIN, [join(RUNNERS, 'runner.php')]]],
];

it('the page shows each snippet exactly as the file the tests run', () => {
  const page = readFileSync(join(DOCS, 'verify-callbacks.md'), 'utf8');
  for (const file of Object.values(SNIPPETS))
    expect(page).toContain(readFileSync(join(DOCS, 'snippets', file), 'utf8'));
});

it('the callbacks are what the snippets expect: a retry with the same X-Event-Id, then two other events', () => {
  const ids = got.map((r) => r.headers['x-event-id']);
  expect(ids[0]).toBe(ids[1]);
  expect(new Set(ids).size).toBe(3);
  expect(got.every((r) => r.signatureValid)).toBe(true);
});

it.each(interpreters)(
  '%s: accepts real callbacks, drops the repeat, refuses forged and stale ones',
  async (_name, command) => {
    const [first, retry, other, last] = got as [ReceivedCallback, ReceivedCallback, ReceivedCallback, ReceivedCallback];
    const cases = [
      caseOf(first),
      caseOf(retry),
      caseOf(other),
      caseOf(last, { raw: last.raw.replace('"status":"new"', '"status":"ftd"') }), // forged body, genuine headers
      caseOf(last, { secret: 'cs_not_the_secret' }), // signed with another secret
      caseOf(last, { nowOffsetS: 301 }), // genuine, but the attempt is 301 s old
      caseOf(last, { nowOffsetS: -301 }), // genuine, but 301 s in the future
      caseOf(last),
    ];
    expect(cases[3]!.body_base64).not.toBe(cases[7]!.body_base64);
    const [bin, args] = command();
    expect(await run(bin, args, cases)).toEqual([
      'ok',
      'duplicate',
      'ok',
      'bad_signature',
      'bad_signature',
      'stale',
      'stale',
      'ok',
    ]);
  },
);
