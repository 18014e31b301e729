import { existsSync, readFileSync } from 'node:fs';
import { r1 } from './stats';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileSummary {
  file: string;
  totalMs: number;
  idlePct: number;
  topFunctions: { fn: string; where: string; selfPct: number }[]; // % of non-idle time
  byModule: { module: string; selfPct: number }[];
}

// Where a frame's code lives: an npm package, a file of ours, Node itself, or V8's pseudo-frames.
function moduleOf(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1] as string;
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  const ours = /\/(src|bench)\/(.*)$/.exec(url);
  if (ours) return `${ours[1]}/${ours[2]}`.replace(/\.js$/, '');
  return url;
}

// The monotonic clock V8 stamps profile samples with (microseconds), for cutting a profile to the
// load window: process.hrtime reads the same CLOCK_MONOTONIC in every process.
export const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);

// Self time per function and per module from a .cpuprofile (node --cpu-prof), counting only the
// samples taken inside `window` (monotonic microseconds) when given, so start-up is left out.
export function summariseProfile(
  file: string,
  window?: { fromUs: number; toUs: number },
  top = 15,
): ProfileSummary | null {
  if (!existsSync(file)) return null;
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  let t = p.startTime;
  p.samples.forEach((id, i) => {
    const delta = p.timeDeltas[i] ?? 0;
    t += delta;
    if (window && (t < window.fromUs || t > window.toUs)) return;
    self.set(id, (self.get(id) ?? 0) + delta);
  });
  let total = 0;
  let idle = 0;
  const fns = new Map<string, number>();
  const mods = new Map<string, number>();
  for (const [id, us] of self) {
    const node = byId.get(id);
    if (!node) continue;
    total += us;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') {
      idle += us;
      continue;
    }
    const mod = moduleOf(url, functionName);
    const key = `${functionName || '(anonymous)'}\t${mod}:${lineNumber + 1}`;
    fns.set(key, (fns.get(key) ?? 0) + us);
    mods.set(mod, (mods.get(mod) ?? 0) + us);
  }
  const busy = Math.max(1, total - idle);
  const pct = (us: number) => r1((us / busy) * 100);
  return {
    file,
    totalMs: Math.round(total / 1000),
    idlePct: r1((idle / Math.max(1, total)) * 100),
    topFunctions: [...fns]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => {
        const [fn, where] = k.split('\t');
        return { fn: fn as string, where: where as string, selfPct: pct(us) };
      }),
    byModule: [...mods]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([module, us]) => ({ module, selfPct: pct(us) })),
  };
}
