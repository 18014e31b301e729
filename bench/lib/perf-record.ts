import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Table } from './context';
import { r1 } from './stats';

// On-CPU profiles of the roles with Linux perf (`--perf`), beside V8's `--cpu-prof` (`--profile`).
// V8's profiler samples on wall-clock intervals, so a thread that writes to a loopback socket and
// loses the core to the server it woke is charged the wait: socket writes led every role's
// `--profile` table while the roles' kernel time was a few percent. perf samples only what runs,
// the garbage collector's and compiler's threads included, and names JIT-compiled JavaScript from
// the map each role writes with --perf-basic-prof (started with it when `--perf` is given).

export const PERF_NODE_OPTIONS = ['--perf-basic-prof'];

const SAMPLES_PER_S = 999;

export interface PerfSummary {
  cpuMs: number; // CPU time sampled (perf's cpu-clock event counts nanoseconds)
  byKind: { kind: string; pct: number }[]; // every sample, by what ran
  topSymbols: { symbol: string; kind: string; pct: number }[];
}

// What kind of work a sampled symbol is (dso as perf names it: node, libc.so.6, [kernel.kallsyms],
// [JIT] tid N).
export function kindOf(dso: string, symbol: string): string {
  if (dso.includes('kernel')) return 'kernel (syscalls, sockets, scheduling)';
  if (/libcrypto|libssl/.test(dso)) return 'OpenSSL';
  if (/^libc\.|libstdc\+\+|libm\./.test(dso)) return 'libc (malloc, memcpy)';
  if (symbol.startsWith('JS:') || dso.startsWith('[JIT]')) return 'JavaScript (JIT-compiled)';
  if (symbol.startsWith('Builtins_') || symbol.startsWith('Bytecodes_')) return 'V8 builtins (ICs, calls, promises)';
  if (/compiler::|[Mm]aglev|[Tt]urbofan|Compile|Parser|baseline::/.test(symbol)) return 'V8 compiler';
  if (/Marking|Scaveng|Sweep|Heap|MarkCompact|Evacuat|Minor|Remembered|SlotSet|GC/.test(symbol))
    return 'V8 garbage collector';
  if (/^node::|uv_|^napi/.test(symbol)) return 'Node and libuv (C++)';
  return dso === 'node' ? 'V8 runtime' : dso;
}

// `perf report` lines of --no-children --sort dso,sym: "  12.34%  node  [.] Builtins_LoadIC".
export function summarisePerfReport(text: string, top = 12): PerfSummary {
  const byKind = new Map<string, number>();
  const symbols: PerfSummary['topSymbols'] = [];
  for (const line of text.split('\n')) {
    const m = /^\s+([\d.]+)%\s+(.+?)\s+\[[.k]\] (.+)$/.exec(line);
    if (!m) continue;
    const pct = Number(m[1]);
    const kind = kindOf((m[2] as string).trim(), m[3] as string);
    byKind.set(kind, (byKind.get(kind) ?? 0) + pct);
    symbols.push({ symbol: (m[3] as string).slice(0, 90), kind, pct });
  }
  const cpuMs = Math.round(Number(/^# Event count \(approx\.\): (\d+)/m.exec(text)?.[1] ?? 0) / 1e6);
  return {
    cpuMs,
    byKind: [...byKind].map(([kind, pct]) => ({ kind, pct: r1(pct) })).sort((a, b) => b.pct - a.pct),
    topSymbols: symbols.sort((a, b) => b.pct - a.pct).slice(0, top),
  };
}

// `perf record` of each role from start() to stop(); null where perf is not installed or refused.
export class PerfRecorder {
  private readonly running = new Map<string, { child: ChildProcess; file: string; done: Promise<void>; pid: number }>();

  constructor(private readonly dir: string) {}

  static available(): boolean {
    return spawnSync('perf', ['--version'], { stdio: 'ignore' }).status === 0;
  }

  start(roles: readonly { role: string; pid: number }[]): void {
    mkdirSync(this.dir, { recursive: true });
    for (const { role, pid } of roles) {
      const file = join(this.dir, `${role}.perf.data`);
      const child = spawn('perf', ['record', '-F', String(SAMPLES_PER_S), '-p', String(pid), '-o', file, '-q'], {
        stdio: 'ignore',
      });
      const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      this.running.set(role, { child, file, done, pid });
    }
  }

  // Stops every recording and summarises each role's samples.
  async stop(): Promise<Record<string, PerfSummary | null>> {
    const out: Record<string, PerfSummary | null> = {};
    for (const [role, r] of this.running) {
      r.child.kill('SIGINT');
      await r.done;
      out[role] = existsSync(r.file) ? report(r.file) : null;
      // --perf-basic-prof also writes V8's event log into the role's working directory (ours).
      for (const f of readdirSync('.')) if (f.startsWith('isolate-') && f.endsWith(`-${r.pid}-v8.log`)) rmSync(f);
    }
    this.running.clear();
    return out;
  }
}

function report(file: string): PerfSummary | null {
  const res = spawnSync(
    'perf',
    ['report', '-i', file, '--no-children', '--sort', 'dso,sym', '--stdio', '-g', 'none', '--percent-limit', '0'],
    { encoding: 'utf8', maxBuffer: 64 << 20 },
  );
  if (res.status !== 0) return null;
  const summary = summarisePerfReport(res.stdout);
  rmSync(file, { force: true });
  return summary;
}

export function perfTables(perf: Record<string, PerfSummary | null>): Table[] {
  return Object.entries(perf).flatMap(([role, p]) =>
    p
      ? [
          {
            title: `On-CPU profile of ${role} during the measured load (perf, ${p.cpuMs} ms of CPU sampled): % of its CPU by kind of work`,
            columns: ['kind', '%'],
            rows: p.byKind.map((k) => [k.kind, k.pct]),
            note: `top symbols: ${p.topSymbols.map((s) => `${s.symbol} ${s.pct}%`).join(', ')}`,
          },
        ]
      : [],
  );
}
