import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { checkPendingInMs } from '../../src/shared/kafka/request-queue-timer';

// kafkajs 2.2.4 keeps "no throttle" as a time of -1 and, unpatched, sets a timer for `-1 - now` ms
// after every answer (Node: TimeoutNegativeWarning, then a 1 ms loop). The patch is loaded with
// src/shared/kafka/client.ts; a client built anywhere else (a test's set-up, a tool, the bench)
// would run unpatched whenever nothing else in its process loaded it.
const ROOT = resolve(__dirname, '..', '..');
const SKIP = new Set(['node_modules', '.build', '.git', '.run']);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name)) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return /\.(ts|tsx|mjs|js)$/.test(name) ? [path] : [];
  });
}

it('builds every Kafka client in src/shared/kafka/client.ts, where kafkajs is patched', () => {
  const building = ['src', 'test', 'bench', 'scripts']
    .flatMap((dir) => files(join(ROOT, dir)))
    .filter((file) => /new Kafka\(/.test(readFileSync(file, 'utf8')))
    .map((file) => relative(ROOT, file));
  expect(building).toEqual(['src/shared/kafka/client.ts']);
});

describe("the request queue's next check", () => {
  const now = 1_795_911_803_234;
  it('is none with nothing pending and no throttle, whatever kafkajs keeps for no throttle', () => {
    expect(checkPendingInMs(0, { kind: 'none' })).toBeNull();
    expect(checkPendingInMs(0, { kind: 'until', at: now - 5 }, now)).toBeNull();
  });
  it('waits out a throttle, and checks queued requests soon without one', () => {
    expect(checkPendingInMs(0, { kind: 'until', at: now + 250 }, now)).toBe(250);
    expect(checkPendingInMs(3, { kind: 'until', at: now + 250 }, now)).toBe(250);
    expect(checkPendingInMs(3, { kind: 'none' }, now)).toBe(10);
  });
});
