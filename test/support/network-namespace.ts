import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// A network namespace of its own for one process of a drill (`ip netns`, as root), with nothing in
// it but loopback. The servers it may reach are forwarded in one port at a time by two socat
// processes joined by a Unix socket (the file system is shared, the network is not): one in the
// namespace listening on 127.0.0.1:<port>, one outside connecting to 127.0.0.1:<port>. A
// forwarder frozen with SIGSTOP (its whole process group, the connections it forked included)
// drops that server's traffic silently, as a network partition does; SIGCONT heals it.
export class NetworkNamespace {
  private readonly forwarders = new Map<number, ChildProcess[]>();

  private constructor(
    readonly name: string,
    private readonly dir: string,
  ) {}

  static create(): NetworkNamespace {
    const name = `lead-drill-${randomBytes(3).toString('hex')}`;
    execFileSync('ip', ['netns', 'add', name]);
    execFileSync('ip', ['netns', 'exec', name, 'ip', 'link', 'set', 'lo', 'up']);
    return new NetworkNamespace(name, mkdtempSync(join(process.env.LEADS_PRIVATE_ROOT ?? tmpdir(), 'netns-')));
  }

  // The command line that runs `argv` inside the namespace.
  wrap(argv: readonly string[]): string[] {
    return ['ip', 'netns', 'exec', this.name, ...argv];
  }

  // 127.0.0.1:`port` outside, reachable inside at 127.0.0.1:`port`.
  async forwardIn(port: number): Promise<void> {
    const sock = join(this.dir, `in-${port}.sock`);
    const outside = this.start(['socat', `UNIX-LISTEN:${sock},fork,unlink-early`, `TCP:127.0.0.1:${port}`]);
    await waitFor(() => exists(sock));
    const inside = this.start(
      this.wrap(['socat', `TCP-LISTEN:${port},bind=127.0.0.1,fork,reuseaddr`, `UNIX-CONNECT:${sock}`]),
    );
    this.forwarders.set(port, [outside, inside]);
  }

  // 127.0.0.1:`insidePort` inside, reachable outside at 127.0.0.1:`outsidePort`.
  async forwardOut(insidePort: number, outsidePort: number): Promise<void> {
    const sock = join(this.dir, `out-${insidePort}.sock`);
    const inside = this.start(
      this.wrap(['socat', `UNIX-LISTEN:${sock},fork,unlink-early`, `TCP:127.0.0.1:${insidePort}`]),
    );
    await waitFor(() => exists(sock));
    const outside = this.start([
      'socat',
      `TCP-LISTEN:${outsidePort},bind=127.0.0.1,fork,reuseaddr`,
      `UNIX-CONNECT:${sock}`,
    ]);
    this.forwarders.set(-insidePort, [inside, outside]);
  }

  // Every connection through the forwarders of `port` stops dead (nothing refused, nothing answered).
  cut(port: number): void {
    this.signal(port, 'SIGSTOP');
  }

  heal(port: number): void {
    this.signal(port, 'SIGCONT');
  }

  destroy(): void {
    for (const procs of this.forwarders.values()) {
      for (const p of procs) {
        try {
          process.kill(-(p.pid as number), 'SIGCONT');
          process.kill(-(p.pid as number), 'SIGKILL');
        } catch {
          // gone already
        }
      }
    }
    this.forwarders.clear();
    try {
      execFileSync('ip', ['netns', 'del', this.name]);
    } catch {
      // deleted already
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private signal(port: number, signal: NodeJS.Signals): void {
    const procs = this.forwarders.get(port);
    if (!procs) throw new Error(`nothing forwarded on port ${port}`);
    for (const p of procs) process.kill(-(p.pid as number), signal);
  }

  // Its own process group, so a signal reaches the connections it forked too.
  private start(argv: string[]): ChildProcess {
    const child = spawn(argv[0] as string, argv.slice(1), { detached: true, stdio: 'ignore' });
    child.unref();
    return child;
  }
}

function exists(path: string): boolean {
  try {
    return statSync(path).isSocket();
  } catch {
    return false;
  }
}

async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('a forwarder did not start');
    await new Promise((r) => setTimeout(r, 20));
  }
}
