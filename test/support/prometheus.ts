import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';

export interface PromSeries {
  metric: Record<string, string>;
  value: [number, string];
}

// A real Prometheus (Debian's) as a child process on a free loopback port: it scrapes the given
// targets every second under job="lead-intake" and evaluates the rule files every second, with its
// storage in a temporary directory removed at stop.
export class PrometheusServer {
  private child: ChildProcess | null = null;
  private dir = '';
  private readonly log: string[] = [];
  url = '';

  constructor(
    private readonly bin: string,
    private readonly targets: string[],
    private readonly ruleFiles: string[],
  ) {}

  async start(timeoutMs = 30_000): Promise<this> {
    this.dir = mkdtempSync(join(tmpdir(), 'prometheus-'));
    const config = join(this.dir, 'prometheus.yml');
    writeFileSync(
      config,
      JSON.stringify({
        global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
        rule_files: this.ruleFiles,
        scrape_configs: [{ job_name: 'lead-intake', static_configs: [{ targets: this.targets }] }],
      }),
    );
    const port = await freePort();
    this.url = `http://127.0.0.1:${port}`;
    this.child = spawn(
      this.bin,
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${join(this.dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child.stdout?.on('data', (d: Buffer) => this.log.push(d.toString()));
    this.child.stderr?.on('data', (d: Buffer) => this.log.push(d.toString()));
    const deadline = Date.now() + timeoutMs;
    while (
      (await fetch(`${this.url}/-/ready`).then(
        (r) => r.status,
        () => 0,
      )) !== 200
    ) {
      if (this.child.exitCode !== null || Date.now() > deadline)
        throw new Error(`Prometheus did not start: ${this.log.join('')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return this;
  }

  async query(expr: string): Promise<PromSeries[]> {
    const res = await fetch(`${this.url}/api/v1/query?${new URLSearchParams({ query: expr })}`);
    const body = (await res.json()) as {
      status: string;
      error?: string;
      data?: { resultType: string; result: PromSeries[] };
    };
    if (body.status !== 'success') throw new Error(`Prometheus refused ${expr}: ${body.error}`);
    return body.data?.result ?? [];
  }

  // Polls until the expression returns a series (scrapes land every second), or gives up with [].
  async queryUntilData(expr: string, timeoutMs: number): Promise<PromSeries[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const result = await this.query(expr);
      if (result.length > 0 || Date.now() > deadline) return result;
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  async get<T>(path: string): Promise<T> {
    return ((await (await fetch(`${this.url}${path}`)).json()) as { data: T }).data;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }
}
