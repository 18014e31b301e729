import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePrivatePort } from '../support/private-service';
import { testEnv } from '../support/test-config';

// A role whose start fails (here: no broker answers) closes what it opened (the store's client, the
// Kafka admin and producer, Redis), so its process ends instead of hanging on them: a test suite whose
// servers did not start fails, rather than waiting for CI's time limit.
const ROOT = join(__dirname, '..', '..');

it('fails a start without Kafka and leaves its process nothing to wait for', async () => {
  const env = testEnv({ ROLE: 'ingress', KAFKA_BROKERS: `127.0.0.1:${await freePrivatePort()}` });
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/start-and-fail.ts'], {
    cwd: ROOT,
    env: { ...process.env, SMTP_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const exited = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => (child.kill('SIGKILL'), resolve(null)), 60_000);
    child.once('exit', (code) => (clearTimeout(timer), resolve(code)));
  });
  expect(out).toMatch(/^failed: /);
  expect(exited).toBe(0);
}, 70_000);
