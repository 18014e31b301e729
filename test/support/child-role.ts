import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface ChildRole {
  url: string;
  process: ChildProcess;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

const ROOT = join(__dirname, '..', '..');

// Where a child role runs: `wrap` gives the command line that runs it (in a network namespace of its
// own, say), `reachAt` the address this process reaches its HTTP port at.
export interface ChildPlace {
  wrap(argv: string[]): string[];
  reachAt(url: string): string;
}

// Runs a role as its own OS process through the real entry point (src/main.ts), so fault tests can
// kill -9 it. Resolves once it logs that it listens and /readyz answers 200.
// The children's log lines of this test file, the latest KEPT_LINES, for a failed drill to show those
// of what it found wrong (CI keeps no files).
const KEPT_LINES = 200_000;
const kept: string[] = [];
const keep = (line: string): void => {
  if (kept.push(line) > KEPT_LINES) kept.shift();
};
export const childLogLines = (mentioning: string): string[] => kept.filter((l) => l.includes(mentioning));

// The lines one role's children logged between two times (ms since the epoch), the latest `max`: what
// its members did around something a drill found wrong (hand-overs, leases, rejoins), which no line
// naming the delivery says.
export function childLogLinesAround(role: string, fromMs: number, toMs: number, max = 80): string[] {
  const within = kept.filter((l) => {
    try {
      const line = JSON.parse(l) as { role?: string; time?: number };
      return line.role === role && typeof line.time === 'number' && line.time >= fromMs && line.time <= toMs;
    } catch {
      return false;
    }
  });
  return within.slice(-max);
}

export async function startChildRole(
  role: string,
  env: Record<string, string>,
  timeoutMs = 60_000,
  place?: ChildPlace,
): Promise<ChildRole> {
  const [command, ...args] = (place?.wrap ?? ((a: string[]) => a))([
    process.execPath,
    '--import',
    'tsx',
    'src/main.ts',
    role,
  ]);
  const child = spawn(command as string, args, {
    cwd: ROOT,
    // SMTP_URL from scripts/services.sh env would turn mail on without its other settings: only a test's own.
    env: { ...process.env, SMTP_URL: '', ...env, LOG_LEVEL: process.env.CHILD_LOG_LEVEL ?? 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  child.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${role} did not start in ${timeoutMs} ms: ${stderr.join('')}`)),
      timeoutMs,
    );
    exited.then((code) => reject(new Error(`${role} exited with ${code}: ${stderr.join('')}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      // CHILD_LOG: a file to keep the child's log lines in, to read after a failed drill.
      if (process.env.CHILD_LOG) appendFileSync(process.env.CHILD_LOG, `${line}\n`);
      keep(line);
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === 'lead intake started' && entry.url) {
          clearTimeout(timer);
          resolve(place ? place.reachAt(entry.url) : entry.url);
        }
      } catch {
        // not a log line
      }
    });
  });
  const deadline = Date.now() + timeoutMs;
  while (
    (await fetch(`${url}/readyz`).then(
      (r) => r.status,
      () => 0,
    )) !== 200
  ) {
    if (Date.now() > deadline) throw new Error(`${role} never became ready`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    process: child,
    async kill(signal: NodeJS.Signals = 'SIGKILL') {
      if (child.exitCode === null) child.kill(signal);
      await exited;
    },
  };
}
