// Latency summaries: exact percentiles over every sample (runs are bounded, so samples fit in memory).
export interface Summary {
  n: number;
  min: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

export function summarise(samples: ArrayLike<number>): Summary {
  const n = samples.length;
  if (n === 0) return { n: 0, min: NaN, p50: NaN, p95: NaN, p99: NaN, max: NaN, mean: NaN };
  const sorted = Float64Array.from(samples).sort();
  const at = (q: number) => sorted[Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))] as number;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sorted[i] as number;
  return {
    n,
    min: r2(sorted[0] as number),
    p50: r2(at(0.5)),
    p95: r2(at(0.95)),
    p99: r2(at(0.99)),
    max: r2(sorted[n - 1] as number),
    mean: r2(sum / n),
  };
}

export const r2 = (x: number): number => Math.round(x * 100) / 100;
export const r1 = (x: number): number => Math.round(x * 10) / 10;
