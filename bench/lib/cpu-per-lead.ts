import type { CpuWindow } from './proc';
import { r2 } from './stats';

// The processes a lead costs CPU in are every server and role; the load generator (this bench
// process) and the callback receiver stand in for partners and are shown apart.
const OUTSIDE = new Set(['bench', 'receiver']);

export interface CpuPerLead {
  service: number | null; // CPU ms per accepted lead, summed over every server and role
  generator: number | null;
  receiver: number | null;
  byProcess: Record<string, number>;
  ours: number | null; // our roles together (every process but the servers and OUTSIDE)
  oursSystem: number | null; // of which in the kernel
}

// cpu% of each role, its instances (<role>#<n>, --instances) summed.
export function byRole(perProcess: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, pct] of Object.entries(perProcess)) {
    const role = name.replace(/#\d+$/, '');
    out[role] = Math.round(((out[role] ?? 0) + pct) * 10) / 10;
  }
  return out;
}

// cpu% is % of one core, i.e. 10 × core-ms per second: divided by accepted leads per second.
export function cpuPerLead(cpu: CpuWindow, acceptedPerS: number): CpuPerLead {
  if (acceptedPerS <= 0)
    return { service: null, generator: null, receiver: null, byProcess: {}, ours: null, oursSystem: null };
  const ms = (pct: number) => r2((pct * 10) / acceptedPerS);
  const byProcess = Object.fromEntries(Object.entries(byRole(cpu.perProcess)).map(([name, pct]) => [name, ms(pct)]));
  const service = Object.entries(cpu.perProcess)
    .filter(([name]) => !OUTSIDE.has(name))
    .reduce((sum, [, pct]) => sum + pct, 0);
  return {
    service: ms(service),
    generator: cpu.perProcess.bench === undefined ? null : ms(cpu.perProcess.bench),
    receiver: cpu.perProcess.receiver === undefined ? null : ms(cpu.perProcess.receiver),
    byProcess,
    ours: ms(ourShare(cpu.perProcess)),
    oursSystem: ms(ourShare(cpu.systemPerProcess)),
  };
}

// The servers every scenario watches; the rest of a CPU window's processes are ours, or helpers.
export const SERVERS = ['mongo-wire', 'kafka', 'redis', 'registry'] as const;

// % of one core our processes used together: every watched process but the servers and OUTSIDE.
export function ourShare(perProcess: Readonly<Record<string, number>>): number {
  const sum = Object.entries(perProcess)
    .filter(([name]) => !(SERVERS as readonly string[]).includes(name) && !OUTSIDE.has(name))
    .reduce((a, [, pct]) => a + pct, 0);
  return Math.round(sum * 10) / 10;
}
