import { spawn, fork, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtBench, builtMain, ROOT } from './build';
import { freePort, sleep } from './env';
import { memOf } from './proc';
import { r1 } from './stats';

export interface RoleProcess {
  role: string;
  pid: number;
  url: string;
  logFile: string;
  memory(): RoleMemory;
  stop(): Promise<void>;
}

export interface RoleMemory {
  peakRssMb: number; // VmHWM at the end: start-up included
  sampledMaxRssMb: number;
  readyRssMb: number; // RSS once /readyz answered, before any load
  sampledMaxAnonMb: number; // largest RssAnon sample (private memory, without node's mapped code)
  timeline: [number, number, number][]; // [seconds since ready, RSS MB, RssAnon MB] every second
}

export interface RoleOptions {
  logDir: string;
  nodeOptions?: string[]; // node flags added to the image's, e.g. --max-semi-space-size=8
  cpuProfDir?: string; // node --cpu-prof: written when the role exits
  readyTimeoutMs?: number;
  instance?: number; // the n-th instance of the role (--instances): named <role>#<n> from the second on
}

// The node flags the production image runs every role with (the Dockerfile's ENV NODE_OPTIONS):
// the bench measures what ships.
export function imageNodeOptions(): string[] {
  const line = /^ENV NODE_OPTIONS="([^"]*)"$/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
  if (!line) throw new Error('the Dockerfile sets no ENV NODE_OPTIONS="..." for the bench to copy');
  return (line[1] ?? '').split(' ').filter(Boolean);
}

// One role as its own OS process, through the service's real entry point (transpiled src/main.ts),
// its log going to a file (production log level by default) so the benchmark never parses it.
// Resolves once /readyz answers 200: Kafka, MongoDB and Redis answer and its consumers have joined.
// The shell's environment for a role or a helper (the stand-in processor loads the service's config):
// they send no mail, and a relay named by the shell's services env (SMTP_URL) would also need CONSOLE_URL.
function mailless(): NodeJS.ProcessEnv {
  const shell = { ...process.env };
  delete shell.SMTP_URL;
  return shell;
}

export async function startRole(role: string, env: Record<string, string>, opts: RoleOptions): Promise<RoleProcess> {
  mkdirSync(opts.logDir, { recursive: true });
  const port = await freePort();
  const name = (opts.instance ?? 1) > 1 ? `${role}#${opts.instance}` : role;
  const file = name.replace('#', '-');
  const logFile = join(opts.logDir, `${file}.log`);
  const fd = openSync(logFile, 'a');
  const nodeArgs: string[] = [...imageNodeOptions(), ...(opts.nodeOptions ?? [])];
  if (opts.cpuProfDir) {
    mkdirSync(opts.cpuProfDir, { recursive: true });
    nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${opts.cpuProfDir}`, `--cpu-prof-name=${file}.cpuprofile`);
  }
  const child = spawn(process.execPath, [...nodeArgs, builtMain(), role], {
    env: { ...mailless(), ...env, HTTP_PORT: String(port) },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let exitCode: number | null | undefined;
  void exited.then((c) => {
    exitCode = c;
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 120_000);
  for (;;) {
    if (exitCode !== undefined) throw new Error(`${name} exited with ${exitCode} at start: ${tail(logFile)}`);
    if (
      (await fetch(`${url}/readyz`).then(
        (r) => r.status,
        () => 0,
      )) === 200
    )
      break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} was not ready in time: ${tail(logFile)}`);
    }
    await sleep(250);
  }
  return trackMemory(name, child, url, logFile, exited);
}

function trackMemory(
  role: string,
  child: ChildProcess,
  url: string,
  logFile: string,
  exited: Promise<unknown>,
): RoleProcess {
  const pid = child.pid as number;
  const ready = memOf(pid);
  let sampled = ready?.rssMb ?? 0;
  let sampledAnon = ready?.anonMb ?? 0;
  let lastHwm = ready?.hwmMb ?? 0;
  const sampler = setInterval(() => {
    const m = memOf(pid);
    if (m) {
      sampled = Math.max(sampled, m.rssMb);
      sampledAnon = Math.max(sampledAnon, m.anonMb);
      lastHwm = m.hwmMb;
      if (ticks++ % 5 === 0) timeline.push([Math.round((Date.now() - t0) / 1000), r1(m.rssMb), r1(m.anonMb)]);
    }
  }, 200);
  const t0 = Date.now();
  const timeline: [number, number, number][] = [];
  let ticks = 0;
  sampler.unref();
  return {
    role,
    pid,
    url,
    logFile,
    memory: () => ({
      peakRssMb: r1(memOf(pid)?.hwmMb ?? lastHwm),
      sampledMaxRssMb: r1(sampled),
      readyRssMb: r1(ready?.rssMb ?? NaN),
      sampledMaxAnonMb: r1(sampledAnon),
      timeline,
    }),
    async stop() {
      clearInterval(sampler);
      const m = memOf(pid);
      if (m) lastHwm = m.hwmMb;
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(killer);
      }
    },
  };
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-15).join('\n');
  } catch {
    return '(no log)';
  }
}

// A helper of the benchmark (receiver, stand-in processor, HTTP-path driver) as its own process,
// spoken to over IPC: request({type, ...}) answers with the child's reply to that message.
export interface Helper {
  pid: number;
  request<T = unknown>(msg: Record<string, unknown>, timeoutMs?: number): Promise<T>;
  stop(): Promise<void>;
}

export async function startHelper(name: string, env: Record<string, string>, logDir: string): Promise<Helper> {
  mkdirSync(logDir, { recursive: true });
  const fd = openSync(join(logDir, `${name}.log`), 'a');
  const child = fork(builtBench(name), [], { env: { ...mailless(), ...env }, stdio: ['ignore', fd, fd, 'ipc'] });
  closeSync(fd);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let seq = 0;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  child.on('message', (m: { id: number; ok: boolean; value?: unknown; error?: string }) => {
    const w = waiting.get(m.id);
    if (!w) return;
    waiting.delete(m.id);
    if (m.ok) w.resolve(m.value);
    else w.reject(new Error(`${name}: ${m.error}`));
  });
  void exited.then(() => {
    for (const w of waiting.values()) w.reject(new Error(`${name} exited (log: ${join(logDir, `${name}.log`)})`));
    waiting.clear();
  });
  const helper: Helper = {
    pid: child.pid as number,
    request<T>(msg: Record<string, unknown>, timeoutMs = 120_000) {
      const id = ++seq;
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error(`${name}: no answer to ${String(msg.type)} in ${timeoutMs} ms`));
        }, timeoutMs);
        waiting.set(id, {
          resolve: (v) => {
            clearTimeout(timer);
            resolve(v as T);
          },
          reject: (e) => {
            clearTimeout(timer);
            reject(e);
          },
        });
        child.send({ ...msg, id });
      });
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(killer);
      }
    },
  };
  await helper.request({ type: 'ready' }, 60_000);
  return helper;
}

// The child side of startHelper: answers each IPC message with handle()'s result.
export function serveHelper(
  handle: (msg: Record<string, unknown>) => Promise<unknown> | unknown,
  opts: { ready?: Promise<unknown>; onStop?: () => Promise<void> } = {},
): void {
  const ready = opts.ready ?? Promise.resolve();
  ready.catch((err: unknown) => {
    process.stderr.write(`helper failed to start: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
  process.on('message', (msg: Record<string, unknown> & { id: number }) => {
    ready
      .then(() => (msg.type === 'ready' ? true : handle(msg)))
      .then(
        (value) => process.send?.({ id: msg.id, ok: true, value }),
        (err: unknown) => process.send?.({ id: msg.id, ok: false, error: (err as Error).stack ?? String(err) }),
      );
  });
  const stop = () => {
    Promise.resolve(opts.onStop?.()).finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('disconnect', stop);
}
