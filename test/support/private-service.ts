import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';

const ROOT = join(__dirname, '..', '..');

export type PrivateServiceKind = 'kafka' | 'redis' | 'ferretdb';

// The ports the shared servers use: a private instance must never land on one of them, because
// its script's `stop` would then stop what other test files are using.
const SHARED_PORTS = new Set([9092, 9093, 6379, 27017, 8081, 1025, 8025]);

// A private instance of one local server, run by its own script (scripts/services/<kind>.sh) on
// free loopback ports with its data and pid file in a temporary LEADS_RUN, so a drill can stop and
// start it while every other test keeps the shared one. Data persists across stop/start (it lives
// in LEADS_RUN); destroy() stops it and deletes that directory.
export class PrivateService {
  private constructor(
    readonly kind: PrivateServiceKind,
    readonly dir: string,
    private readonly scriptEnv: Record<string, string>,
    readonly port: number,
  ) {}

  static async create(kind: PrivateServiceKind): Promise<PrivateService> {
    // Under the test run's root (scripts/test.sh), which stops whatever an interrupted drill left there.
    const dir = mkdtempSync(join(process.env.LEADS_PRIVATE_ROOT ?? tmpdir(), `drill-${kind}-`));
    const port = await freePrivatePort();
    const env: Record<string, string> = { LEADS_RUN: dir };
    if (kind === 'kafka') {
      env.KAFKA_PORT = String(port);
      env.KAFKA_CONTROLLER_PORT = String(await freePrivatePort([port]));
    } else if (kind === 'redis') {
      env.REDIS_PORT = String(port);
    } else {
      env.MONGO_PORT = String(port);
    }
    return new PrivateService(kind, dir, env, port);
  }

  // The nodes of one KRaft cluster of `n` brokers, each also a controller, on free ports: internal
  // topics replicated to all `n`, min ISR 2 (start them together: a node waits for its quorum).
  static async kafkaCluster(n: number): Promise<PrivateService[]> {
    const ports: number[] = [];
    for (let i = 0; i < 2 * n; i++) ports.push(await freePrivatePort(ports));
    const voters = Array.from({ length: n }, (_, i) => `${i + 1}@127.0.0.1:${ports[2 * i + 1]}`).join(',');
    const clusterId = randomBytes(16).toString('base64url');
    return Array.from({ length: n }, (_, i) => {
      const dir = mkdtempSync(join(process.env.LEADS_PRIVATE_ROOT ?? tmpdir(), `drill-kafka${i + 1}-`));
      return new PrivateService(
        'kafka',
        dir,
        {
          LEADS_RUN: dir,
          KAFKA_PORT: String(ports[2 * i]),
          KAFKA_CONTROLLER_PORT: String(ports[2 * i + 1]),
          KAFKA_NODE_ID: String(i + 1),
          KAFKA_QUORUM_VOTERS: voters,
          KAFKA_CLUSTER_ID: clusterId,
          KAFKA_REPLICATION: String(n),
          KAFKA_MIN_ISR: '2',
        },
        ports[2 * i] as number,
      );
    });
  }

  // kill -9 of the server (a lost machine), not the script's graceful stop.
  kill(): void {
    this.signal('SIGKILL');
  }

  // SIGSTOP: the server keeps its connections open and answers nothing; SIGCONT: it carries on.
  signal(signal: NodeJS.Signals): void {
    process.kill(Number(readFileSync(join(this.dir, `${this.kind}.pid`), 'utf8')), signal);
  }

  // The variables that point the app at this instance.
  get appEnv(): Record<string, string> {
    switch (this.kind) {
      case 'kafka':
        return { KAFKA_BROKERS: `127.0.0.1:${this.port}` };
      case 'redis':
        return { REDIS_URL: `redis://127.0.0.1:${this.port}` };
      case 'ferretdb':
        return { MONGO_URL: `mongodb://127.0.0.1:${this.port}` };
    }
  }

  async start(): Promise<void> {
    await this.script('start');
  }

  async stop(): Promise<void> {
    await this.script('stop');
  }

  async destroy(): Promise<void> {
    await this.script('stop').catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async script(action: 'start' | 'stop'): Promise<void> {
    await runScript(join(ROOT, 'scripts', 'services', `${this.kind}.sh`), [action], this.scriptEnv);
  }
}

// Runs a bash script with `env` on top of this process's environment; resolves with its output,
// rejects with its stderr. Asynchronous on purpose: the app under test often runs in this very
// process and must keep serving while the script waits for a server. Refuses a shared port.
export function runScript(
  script: string,
  args: string[],
  env: Record<string, string | undefined>,
  cwd = ROOT,
): Promise<{ stdout: string; stderr: string }> {
  for (const [name, value] of Object.entries(env)) {
    if (name.endsWith('PORT') && SHARED_PORTS.has(Number(value)))
      throw new Error(`refusing to run ${script} ${args.join(' ')} on shared port ${value}`);
  }
  return new Promise((resolve, reject) => {
    execFile(
      'bash',
      [script, ...args],
      { cwd, env: { ...process.env, ...env }, timeout: 150_000 },
      (err, stdout, stderr) =>
        err
          ? reject(
              Object.assign(new Error(`${script} ${args.join(' ')} failed: ${err.message}\n${stderr}`), {
                stdout,
                stderr,
              }),
            )
          : resolve({ stdout, stderr }),
    );
  });
}

// A loopback port nobody listens on right now (and not one of the shared servers' ports).
export async function freePrivatePort(avoid: number[] = []): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (!SHARED_PORTS.has(port) && !avoid.includes(port)) return port;
  }
}
