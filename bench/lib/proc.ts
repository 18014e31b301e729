import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { r1 } from './stats';

// Readings from /proc (Linux): per-process memory and CPU time, whole-machine CPU time, and which
// process listens on a loopback port (to attribute CPU to Kafka, the MongoDB-wire server, Redis and
// the registry without knowing how they were started). Read-only.

const TICKS_PER_S = 100; // USER_HZ on Linux

export interface MemReading {
  rssMb: number;
  hwmMb: number; // peak RSS since the process started (VmHWM)
  anonMb: number; // RssAnon: heap and other private memory (the rest is mapped files: node's code)
}

export function memOf(pid: number): MemReading | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024, anonMb: kb('RssAnon') / 1024 };
  } catch {
    return null;
  }
}

// CPU seconds the process has used so far: in its own code (user) and in the kernel on its behalf
// (system: its syscalls, including the loopback delivery of what it writes to a socket).
export function cpuTimesOf(pid: number): { user: number; system: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(fields[11]) / TICKS_PER_S, system: Number(fields[12]) / TICKS_PER_S }; // utime, stime
  } catch {
    return null;
  }
}

// CPU seconds (user + system) the process has used so far.
export function cpuSecondsOf(pid: number): number | null {
  const t = cpuTimesOf(pid);
  return t === null ? null : t.user + t.system;
}

// Machine-wide busy and total CPU seconds (all cores).
export function machineCpu(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = (v[3] ?? 0) + (v[4] ?? 0);
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: (total - idle) / TICKS_PER_S, total: total / TICKS_PER_S };
}

export const load1 = (): number => loadavg()[0] ?? 0;

// The pid of the process listening on 127.0.0.1/0.0.0.0:<port>, for each port found, via the
// socket inodes: /proc is walked once for all ports.
export function listenerPids(ports: readonly number[]): Map<number, number> {
  const portOfInode = new Map<string, number>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== '0A') continue; // LISTEN
      const localPort = parseInt((f[1] ?? '').split(':')[1] ?? '', 16);
      if (ports.includes(localPort) && f[9]) portOfInode.set(f[9], localPort);
    }
  }
  const pids = new Map<number, number>();
  const listening = new Set(portOfInode.values()).size;
  for (const entry of readdirSync('/proc')) {
    if (pids.size === listening) break;
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${entry}/fd/${fd}`));
        const port = m ? portOfInode.get(m[1] ?? '') : undefined;
        if (port !== undefined && !pids.has(port)) pids.set(port, Number(entry));
      } catch {
        // fd closed meanwhile
      }
    }
  }
  return pids;
}

export function portOf(url: string, fallback: number): number {
  try {
    const u = new URL(url.replace(/^mongodb(\+srv)?:/, 'http:').replace(/^redis:/, 'http:'));
    return u.port ? Number(u.port) : fallback;
  } catch {
    const m = /:(\d+)/.exec(url);
    return m ? Number(m[1]) : fallback;
  }
}

export interface Watched {
  name: string;
  pid: number;
}

export interface CpuWindow {
  seconds: number;
  perProcess: Record<string, number>; // % of one core
  systemPerProcess: Record<string, number>; // of which in the kernel, % of one core
  machineBusyPct: number; // % of all cores
  othersPct: number; // % of one core used by processes not watched (other work on the machine)
}

// CPU used by each watched process (and the machine) between start() and stop().
export class CpuMeter {
  private start0 = new Map<string, { user: number; system: number } | null>();
  private t0 = 0;
  private m0 = { busy: 0, total: 0 };

  constructor(private readonly watched: () => Watched[]) {}

  start(): void {
    this.t0 = performance.now();
    this.m0 = machineCpu();
    this.start0 = new Map(this.watched().map((w) => [`${w.name}:${w.pid}`, cpuTimesOf(w.pid)]));
  }

  stop(): CpuWindow {
    const seconds = (performance.now() - this.t0) / 1000;
    const m1 = machineCpu();
    const perProcess: Record<string, number> = {};
    const systemPerProcess: Record<string, number> = {};
    for (const w of this.watched()) {
      const before = this.start0.get(`${w.name}:${w.pid}`); // a process restarted meanwhile is left out
      const now = cpuTimesOf(w.pid);
      if (!before || !now) continue;
      perProcess[w.name] = r1(((now.user + now.system - before.user - before.system) / seconds) * 100);
      systemPerProcess[w.name] = r1(((now.system - before.system) / seconds) * 100);
    }
    const busy = m1.busy - this.m0.busy;
    const total = m1.total - this.m0.total;
    const machineBusyPct = total > 0 ? (busy / total) * 100 : 0;
    const watchedPct = Object.values(perProcess).reduce((a, b) => a + b, 0);
    const othersPct = Math.max(0, (machineBusyPct / 100) * cpus().length * 100 - watchedPct);
    return {
      seconds: r1(seconds),
      perProcess,
      systemPerProcess,
      machineBusyPct: r1(machineBusyPct),
      othersPct: r1(othersPct),
    };
  }
}

// Command line (truncated) and start time of a process.
export function processInfo(pid: number): { cmd: string; startedAt: string | null } {
  try {
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim().slice(0, 300);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const startTicks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    // From the boot time (a whole second, fixed), not from now minus uptime: two readings of one
    // process always agree, so a server is never taken for restarted.
    const bootS = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    const startedAt = new Date((bootS + startTicks / TICKS_PER_S) * 1000).toISOString().slice(0, 19);
    return { cmd, startedAt };
  } catch {
    return { cmd: '', startedAt: null };
  }
}
