import type { MongoCommandLog, OpStats } from './mongo-command-log';
import type { CpuMeter } from './proc';
import { r1, r2, summarise, type Summary } from './stats';

// One access pattern: a unit of work (a chunk of leads, a delivery) run by `concurrency` workers for
// `seconds`, with the commands it sent, per unit and per window as the collections grow.

export interface Window {
  untilS: number;
  totalDocs: number; // commands (or deliveries) handled by the end of the window
  perS: number;
  findP50: number;
  insertP50: number;
  updateP50: number;
}

export interface ShapeTrend {
  firstWindowP50: number;
  lastWindowP50: number;
}

export interface PatternResult {
  concurrency: number;
  seconds: number;
  units: number;
  perS: number;
  unitMs: Summary; // one lead (decide + publish + assign), or one delivery (create + record)
  stageMs: Record<string, Summary>;
  opsPerUnit: Record<string, number>;
  opMs: Record<string, Summary>;
  windows: Window[];
  trend: Record<string, ShapeTrend>; // p50 of each command shape in the first and the last window
  cpu: Record<string, number>;
  othersPct: number;
}

export async function pattern(
  concurrency: number,
  seconds: number,
  unit: (stages: Record<string, number[]>) => Promise<void>,
  log: MongoCommandLog,
  meter: CpuMeter,
  issued: () => number,
): Promise<PatternResult> {
  log.take();
  const stages: Record<string, number[]> = {};
  const unitMs: number[] = [];
  const all = new Map<string, OpStats>();
  const windows: Window[] = [];
  const perWindow: Map<string, OpStats>[] = [];
  const start = performance.now();
  const end = start + seconds * 1000;
  const first = issued();
  let done = 0;
  let windowDone = 0;
  const windowMs = Math.max(2000, (seconds * 1000) / 8);
  let nextWindow = start + windowMs;
  meter.start();
  const closeWindow = () => {
    const ops = log.take();
    perWindow.push(ops);
    for (const [k, v] of ops) {
      const a = all.get(k) ?? { count: 0, ms: [] };
      a.count += v.count;
      a.ms.push(...v.ms);
      all.set(k, a);
    }
    const p50 = (names: string[]) =>
      summarise([...ops].filter(([k]) => names.includes(k.split(' ')[0] as string)).flatMap(([, v]) => v.ms)).p50;
    windows.push({
      untilS: r1((performance.now() - start) / 1000),
      totalDocs: issued(),
      perS: r1(windowDone / (windowMs / 1000)),
      findP50: p50(['find', 'count']),
      insertP50: p50(['insert']),
      updateP50: p50(['update', 'findAndModify']),
    });
    windowDone = 0;
  };
  const worker = async () => {
    while (performance.now() < end) {
      const t = performance.now();
      await unit(stages);
      unitMs.push(performance.now() - t);
      done++;
      windowDone++;
      if (performance.now() >= nextWindow) {
        nextWindow += windowMs;
        closeWindow();
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const cpu = meter.stop();
  closeWindow();
  const elapsed = (performance.now() - start) / 1000;
  const units = issued() - first;
  return {
    concurrency,
    seconds: r1(elapsed),
    units: done,
    perS: r1(units / elapsed),
    unitMs: summarise(unitMs),
    stageMs: Object.fromEntries(Object.entries(stages).map(([k, v]) => [k, summarise(v)])),
    opsPerUnit: Object.fromEntries(
      [...all].sort((a, b) => b[1].count - a[1].count).map(([k, v]) => [k, r2(v.count / Math.max(1, units))]),
    ),
    opMs: Object.fromEntries([...all].map(([k, v]) => [k, summarise(v.ms)])),
    windows,
    trend: trendOf(perWindow.filter((w) => w.size > 0)),
    cpu: cpu.perProcess,
    othersPct: cpu.othersPct,
  };
}

function trendOf(windows: Map<string, OpStats>[]): Record<string, ShapeTrend> {
  const first = windows[0];
  const last = windows[windows.length - 1];
  const out: Record<string, ShapeTrend> = {};
  for (const key of new Set([...(first?.keys() ?? []), ...(last?.keys() ?? [])])) {
    out[key] = {
      firstWindowP50: summarise(first?.get(key)?.ms ?? []).p50,
      lastWindowP50: summarise(last?.get(key)?.ms ?? []).p50,
    };
  }
  return out;
}
