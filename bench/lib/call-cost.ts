import { spawn, type ChildProcess } from 'node:child_process';
import { sleep } from './env';
import { r1 } from './stats';

// What a client's calls cost the process that makes them, apart from the server: for the
// not-a-scenario benches driver-cost.ts and round-trip-cost.ts.
export interface CallCost {
  kind: string;
  calls: number;
  userUs: number; // CPU a call, in this process's own code
  sysUs: number; // CPU a call, in the kernel on its behalf
}

export interface TimedCost extends CallCost {
  wallUs: number; // wall time a call
}

export function perCall(kind: string, calls: number, used: NodeJS.CpuUsage): CallCost {
  return { kind, calls, userUs: r1(used.user / calls), sysUs: r1(used.system / calls) };
}

// `warm` untimed calls first (JIT, connections, buffers), then `n` timed, one at a time, each after
// `gapMs` of idling when given (the wake-up is then part of the call's cost).
export async function costOneAtATime(
  kind: string,
  n: number,
  call: (i: number) => Promise<unknown>,
  { warm = 0, gapMs = 0 }: { warm?: number; gapMs?: number } = {},
): Promise<TimedCost> {
  for (let i = 0; i < warm; i++) await call(-1 - i);
  const cpu = process.cpuUsage();
  const t = performance.now();
  for (let i = 0; i < n; i++) {
    if (gapMs > 0) await sleep(gapMs);
    await call(i);
  }
  const used = process.cpuUsage(cpu);
  return { ...perCall(kind, n, used), wallUs: r1(((performance.now() - t) * 1000) / n) };
}

// A node process running `script` (the server side of a measured round trip), which prints the port
// it listens on.
export async function helperProcess(script: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`a helper exited with ${code}`)));
    child.stdout?.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
  });
  return { child, port };
}
