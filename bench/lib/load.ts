import { BalancedPool, Pool } from 'undici';
import { summarise, r1, type Summary } from './stats';
import type { SignedRequest } from './leads';

// The load generator: loopback HTTP through undici with keep-alive connections, bounded in
// requests and time. Open loop sends at a fixed offered rate scheduled by the clock, whether or
// not earlier requests have come back, and measures each latency from the request's scheduled
// start (so a stall is charged to every request it delayed: no coordinated omission); the latency
// from the actual send is kept as well. Closed loop keeps `concurrency` requests in flight back to
// back, for the maximum throughput.

export interface LoadOptions {
  baseUrl: string | readonly string[]; // several: requests spread over them (instances of the ingress)
  next: () => SignedRequest;
  durationS: number;
  maxRequests?: number;
  connections?: number;
  timeoutMs?: number;
}

export interface LoadResult {
  mode: 'open' | 'closed';
  offeredPerS: number | null;
  concurrency: number | null;
  durationS: number;
  sent: number;
  completed: number;
  notSent: number; // open loop: requests the generator skipped because maxInFlight was reached
  transportErrors: number;
  byStatus: Record<string, number>; // HTTP status -> count
  byOutcome: Record<string, number>; // intake status or error code -> count
  acceptedPerS: number;
  completedPerS: number;
  latencyMs: Summary; // open loop: from the scheduled start (coordinated-omission corrected)
  serviceLatencyMs: Summary; // from the moment the request was handed to the client
  acceptedLatencyMs: Summary;
  // open loop: how late the generator itself sent (actual - scheduled send); large values mean the
  // benchmark process was starved of CPU and the latencies above include its delay
  generatorLagMs: Summary;
  accepted: { lead: string; at: number }[]; // lead id and epoch ms of the answer (not serialised)
}

class Recorder {
  byStatus: Record<string, number> = {};
  byOutcome: Record<string, number> = {};
  latencies: number[] = [];
  service: number[] = [];
  acceptedLat: number[] = [];
  lag: number[] = [];
  accepted: { lead: string; at: number }[] = [];
  completed = 0;
  transportErrors = 0;
  sent = 0;
  lastDone = 0;

  record(status: number, text: string, latency: number, service: number): void {
    this.completed++;
    this.lastDone = performance.now();
    this.byStatus[status] = (this.byStatus[status] ?? 0) + 1;
    let outcome = `http_${status}`;
    let lead: string | null = null;
    try {
      const body = JSON.parse(text) as { status?: string; error?: string; id?: string | null };
      outcome = body.status ?? body.error ?? outcome;
      lead = typeof body.id === 'string' ? body.id : null;
    } catch {
      // not JSON
    }
    this.byOutcome[outcome] = (this.byOutcome[outcome] ?? 0) + 1;
    this.latencies.push(latency);
    this.service.push(service);
    if (status === 200 && outcome === 'accepted' && lead) {
      this.acceptedLat.push(latency);
      this.accepted.push({ lead, at: performance.timeOrigin + performance.now() });
    }
  }

  failed(latency: number): void {
    this.completed++;
    this.transportErrors++;
    this.lastDone = performance.now();
    this.byOutcome.transport_error = (this.byOutcome.transport_error ?? 0) + 1;
    this.latencies.push(latency);
  }
}

function pool(opts: LoadOptions, connections: number): Pool | BalancedPool {
  const timeout = opts.timeoutMs ?? 15_000;
  const urls = typeof opts.baseUrl === 'string' ? [opts.baseUrl] : opts.baseUrl;
  const options = { pipelining: 1, headersTimeout: timeout, bodyTimeout: timeout, keepAliveTimeout: 30_000 };
  return urls.length === 1
    ? new Pool(urls[0] as string, { ...options, connections })
    : new BalancedPool([...urls], { ...options, connections: Math.ceil(connections / urls.length) });
}

async function send(p: Pool | BalancedPool, req: SignedRequest, rec: Recorder, scheduled: number): Promise<void> {
  const sentAt = performance.now();
  rec.lag.push(sentAt - scheduled);
  rec.sent++;
  try {
    const method = req.method ?? 'POST';
    const res = await p.request({
      method,
      path: req.path,
      headers: req.headers,
      ...(method === 'POST' ? { body: req.body } : {}),
    });
    const text = await res.body.text();
    const done = performance.now();
    rec.record(res.statusCode, text, done - scheduled, done - sentAt);
  } catch {
    rec.failed(performance.now() - scheduled);
  }
}

function result(
  mode: 'open' | 'closed',
  rec: Recorder,
  start: number,
  opts: LoadOptions,
  extra: Partial<LoadResult>,
): LoadResult {
  const wall = Math.max(opts.durationS, (rec.lastDone - start) / 1000);
  const accepted = rec.byOutcome.accepted ?? 0;
  return {
    mode,
    offeredPerS: null,
    concurrency: null,
    durationS: r1(wall),
    sent: rec.sent,
    completed: rec.completed,
    notSent: 0,
    transportErrors: rec.transportErrors,
    byStatus: rec.byStatus,
    byOutcome: rec.byOutcome,
    acceptedPerS: r1(accepted / wall),
    completedPerS: r1(rec.completed / wall),
    latencyMs: summarise(rec.latencies),
    serviceLatencyMs: summarise(rec.service),
    acceptedLatencyMs: summarise(rec.acceptedLat),
    generatorLagMs: summarise(mode === 'open' ? rec.lag : []),
    accepted: rec.accepted,
    ...extra,
  };
}

export async function openLoop(opts: LoadOptions & { ratePerS: number; maxInFlight?: number }): Promise<LoadResult> {
  const maxInFlight = opts.maxInFlight ?? 5000;
  const p = pool(opts, opts.connections ?? 128);
  const rec = new Recorder();
  const total = Math.min(opts.maxRequests ?? Infinity, Math.ceil(opts.ratePerS * opts.durationS));
  const interval = 1000 / opts.ratePerS;
  const inFlight = new Set<Promise<void>>();
  let notSent = 0;
  const start = performance.now() + 20;
  let i = 0;
  while (i < total) {
    const now = performance.now();
    while (i < total && start + i * interval <= now) {
      const scheduled = start + i * interval;
      i++;
      if (inFlight.size >= maxInFlight) {
        notSent++;
        continue;
      }
      const pr: Promise<void> = send(p, opts.next(), rec, scheduled).finally(() => inFlight.delete(pr));
      inFlight.add(pr);
    }
    if (i >= total) break;
    const wait = start + i * interval - performance.now();
    await new Promise((r) => setTimeout(r, Math.max(0, Math.floor(wait))));
  }
  await Promise.all(inFlight);
  await p.close();
  return result('open', rec, start, opts, { offeredPerS: opts.ratePerS, notSent });
}

export async function closedLoop(opts: LoadOptions & { concurrency: number }): Promise<LoadResult> {
  const p = pool(opts, opts.concurrency);
  const rec = new Recorder();
  const start = performance.now();
  const end = start + opts.durationS * 1000;
  const max = opts.maxRequests ?? Infinity;
  let issued = 0;
  const worker = async (): Promise<void> => {
    while (performance.now() < end && issued < max) {
      issued++;
      await send(p, opts.next(), rec, performance.now());
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  await p.close();
  return result('closed', rec, start, opts, { concurrency: opts.concurrency });
}
