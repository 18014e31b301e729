import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';

const ROOT = join(__dirname, '..', '..');

export type PrivateServiceKind = 'kafka' | 'redis' | 'ferretdb';

// The ports the shared servers use: a private instance must never land on one of them, because
// its script's `stop` would then stop what other test files are using.
const SHARED_PORTS = new Set([9092, 9093, 6379, 27017, 8081]);

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
    const dir = mkdtempSync(join(tmpdir(), `drill-${kind}-`));
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

  // The variables that point the app at this instance.
  get appEnv(): Record<string, string> {
    switch (this.kind) {
      case 'kafka': return { KAFKA_BROKERS: `127.0.0.1:${this.port}` };
      case 'redis': return { REDIS_URL: `redis://127.0.0.1:${this.port}` };
      case 'ferretdb': return { MONGO_URL: `mongodb://127.0.0.1:${this.port}` };
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

  // Asynchronous on purpose: the app under test often runs in this very process and must keep
  // serving while the script waits for the server.
  private script(action: 'start' | 'stop'): Promise<void> {
    for (const [name, value] of Object.entries(this.scriptEnv)) {
      if (name.endsWith('PORT') && SHARED_PORTS.has(Number(value))) throw new Error(`refusing to ${action} a private ${this.kind} on shared port ${value}`);
    }
    return new Promise((resolve, reject) => {
      execFile('bash', [join(ROOT, 'scripts', 'services', `${this.kind}.sh`), action], {
        cwd: ROOT, env: { ...process.env, ...this.scriptEnv }, timeout: 150_000,
      }, (err, _stdout, stderr) => (err ? reject(new Error(`${this.kind}.sh ${action} failed: ${err.message}\n${stderr}`)) : resolve()));
    });
  }
}

// A loopback port nobody listens on right now (and not one of the shared servers' ports).
async function freePrivatePort(avoid: number[] = []): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (!SHARED_PORTS.has(port) && !avoid.includes(port)) return port;
  }
}
