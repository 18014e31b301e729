import { randomBytes } from 'node:crypto';
import { logDirOf, type BenchContext, type ScenarioResult } from '../lib/context';
import { CpuMeter, memOf } from '../lib/proc';
import { startHelper, type Helper } from '../lib/roles';
import { r1, type Summary } from '../lib/stats';

interface Run {
  concurrency: number;
  attempts: number;
  ok: number;
  perS: number;
  statuses: Record<string, number>;
  latencyMs: Summary;
  cpu: Record<string, number>;
  othersPct: number;
}

// (b) The dispatcher's HTTP path alone: signed callbacks from the real sendCallback() to the local
// receiver, no database or Kafka: the ceiling HTTP puts on deliveries per second.
export async function httpPathScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const logDir = logDirOf(ctx, 'http-path');
  const helpers: Helper[] = [];
  const runs: Run[] = [];
  let driverRssMb = 0;
  try {
    const receiver = await startHelper('receiver', {}, logDir);
    helpers.push(receiver);
    const driver = await startHelper('http-path-driver', {}, logDir);
    helpers.push(driver);
    const base = await receiver.request<string>({ type: 'base' });
    const urls: string[] = [];
    const secrets: string[] = [];
    for (let i = 0; i < 20; i++) {
      const secret = `cs_${randomBytes(16).toString('hex')}`;
      await receiver.request({ type: 'route', path: `/p${i}`, secret });
      urls.push(`${base}/p${i}`);
      secrets.push(secret);
    }
    const seconds = ctx.opts.quick ? 4 : 8;
    await driver.request({ type: 'run', urls, secrets, seconds: 1, concurrency: 16 }); // warm-up
    for (const concurrency of [16, 128]) {
      const meter = new CpuMeter(() => [
        { name: 'dispatcher-http', pid: driver.pid },
        { name: 'receiver', pid: receiver.pid },
        ...ctx.services(),
      ]);
      meter.start();
      const r = await driver.request<Omit<Run, 'cpu' | 'concurrency' | 'othersPct'>>({
        type: 'run',
        urls,
        secrets,
        seconds,
        concurrency,
      });
      const cpu = meter.stop();
      runs.push({ ...r, concurrency, cpu: cpu.perProcess, othersPct: cpu.othersPct });
      ctx.log(
        `http-path c=${concurrency}: ${r.perS} deliveries/s, p50 ${r.latencyMs.p50} ms p99 ${r.latencyMs.p99} ms`,
      );
    }
    driverRssMb = r1(memOf(driver.pid)?.hwmMb ?? 0);
    const counts = await receiver.request<{ badSignatures: number }>({ type: 'count' });
    if (counts.badSignatures > 0) throw new Error(`receiver saw ${counts.badSignatures} bad signatures`);
  } finally {
    for (const h of helpers) await h.stop().catch(() => undefined);
  }
  return {
    name: 'http-path',
    title: 'Dispatcher HTTP path alone',
    tables: [
      {
        title: 'Dispatcher HTTP path alone: sendCallback() to a local receiver (no MongoDB, no Kafka)',
        columns: [
          'in flight',
          'delivered',
          'deliveries/s',
          'p50 ms',
          'p99 ms',
          'sender cpu%',
          'receiver cpu%',
          'others cpu%',
        ],
        rows: runs.map((r) => [
          r.concurrency,
          r.ok,
          r.perS,
          r.latencyMs.p50,
          r.latencyMs.p99,
          r.cpu['dispatcher-http'] ?? null,
          r.cpu.receiver ?? null,
          r.othersPct,
        ]),
        note: `sender peak RSS ${driverRssMb} MB; the receiver verifies every signature`,
      },
    ],
    data: { runs, senderPeakRssMb: driverRssMb },
    notes: [],
  };
}
