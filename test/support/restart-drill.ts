import type { App } from '../../src/app';
import { loadConfig } from '../../src/shared/config';
import { CallbackReceiver } from './callback-receiver';
import { expectNothingLost, expectOnlyRetryableFailures } from './drill-checks';
import { DRILL_ENV, DRILL_PATH, drillPartner } from './drill-partner';
import { PrivateService, type PrivateServiceKind } from './private-service';
import { startTestApp, type TestApp } from './test-app';
import { testEnv } from './test-config';
import { SteadyLoad, type Attempt } from './steady-load';
import { until } from './topic-probe';

export interface RestartDrill {
  load: SteadyLoad;
  partnerId: string;
  downAt: number; // the server was stopped (its script's `stop` returned)
  upAt: number; // it answers again (its script's `start` returned)
  during: Attempt[]; // attempts started while it was down
  slowest: number; // ms of the slowest answer (or give-up) of the whole load
  recoveredAfterMs: number; // from upAt to the first lead, started after upAt, accepted
}

// A steady load against `app`, the private server stopped for at least `downMs` in the middle of
// it and started again by its own script; the app is left alone to recover by itself. Returns once
// the load has stopped and every lead has its final answer.
async function restartUnderLoad(opts: {
  app: App;
  service: PrivateService;
  receiver: CallbackReceiver;
  downMs: number;
  perSecond?: number;
}): Promise<RestartDrill> {
  const { app, service, receiver } = opts;
  const partner = await drillPartner(app.runtime, receiver);
  const load = new SteadyLoad({
    targets: () => [app.url],
    creds: partner.creds,
    perSecond: opts.perSecond ?? 3,
  }).start();
  await until(async () => load.runs.filter((r) => r.final?.status === 200).length >= 6, 30_000, 'the first leads');

  await service.stop();
  const downAt = Date.now();
  await new Promise((r) => setTimeout(r, opts.downMs));
  await service.start();
  const upAt = Date.now();

  const firstAfter = await until(
    async () => load.runs.find((r) => r.attempts[0] && r.attempts[0].startedAt > upAt && r.final?.status === 200),
    90_000,
    `a lead accepted after ${service.kind} came back`,
  ).catch(async (err: Error) => {
    // What the app says about itself, and how the latest attempts ended: enough to tell a consumer
    // that never came back from a server that did not.
    const readyz = await fetch(`${app.url}/readyz`).then(
      (r) => r.text(),
      (e: Error) => e.message,
    );
    const last = load
      .attempts()
      .slice(-5)
      .map((a) => `${a.status ?? a.error}:${String(a.body?.error ?? a.body?.status ?? '')}:${a.ms}ms`);
    throw new Error(`${err.message}; readyz: ${readyz}; last answers: ${JSON.stringify(last)}`);
  });
  const recoveredAfterMs = firstAfter.final!.startedAt + firstAfter.final!.ms - upAt;
  let readyz = '';
  await until(
    async () => {
      const res = await fetch(`${app.url}/readyz`);
      readyz = await res.text();
      return res.status === 200;
    },
    60_000,
    'the app to be ready again',
  ).catch((err: Error) => {
    throw new Error(`${err.message}: ${readyz}`);
  });
  await new Promise((r) => setTimeout(r, 1000));
  await load.stop();
  const during = load.attempts().filter((a) => a.startedAt >= downAt && a.startedAt < upAt);
  if (process.env.DRILL_REPORT) {
    process.stderr.write(
      `${service.kind} down ${upAt - downAt} ms, recovered ${recoveredAfterMs} ms after; answers while down: ${JSON.stringify(
        during.map((a) => `${a.status ?? a.error}:${String(a.body?.error ?? a.body?.status ?? '')}:${a.ms}ms`),
      )}\n`,
    );
  }
  const slowest = Math.max(...load.attempts().map((a) => a.ms));
  return { load, partnerId: partner.id, downAt, upAt, during, recoveredAfterMs, slowest };
}

// The whole drill as a jest suite: a PRIVATE instance of `kind` (the shared server other test files
// use is never touched), an app pointed at it, the restart under load, then the invariants: 503 with
// Retry-After while it is down, every attempt answered promptly, only retryable failures, and
// nothing lost or doubled once the app has recovered by itself.
// Returns the app under test, for more tests in the same file.
export function restartDrillSuite(
  kind: PrivateServiceKind,
  what: string,
  defaultDownMs: number,
  setupTimeoutMs = 120_000,
): () => TestApp {
  let service: PrivateService;
  let app: TestApp;
  let receiver: CallbackReceiver;

  beforeAll(async () => {
    service = await PrivateService.create(kind);
    [receiver] = await Promise.all([new CallbackReceiver().start(), service.start()]);
    app = await startTestApp({}, loadConfig(testEnv({ ...DRILL_ENV, ...service.appEnv })));
  }, setupTimeoutMs);

  afterAll(async () => {
    await receiver?.stop();
    await app?.destroy().catch(() => undefined);
    await service?.destroy();
  }, 60_000);

  it(`answers 503 + Retry-After while ${what} is down, recovers by itself, and loses nothing`, async () => {
    const drill = await restartUnderLoad({
      app,
      service,
      receiver,
      downMs: Number(process.env.DOWN_MS ?? defaultDownMs),
    });

    expect(drill.during.length).toBeGreaterThan(0);
    expect(drill.during.filter((a) => a.status === 503 && Number(a.retryAfter) > 0).length).toBeGreaterThan(0);
    // Every attempt got an answer, promptly: none hung until the client gave up.
    expect(drill.load.attempts().filter((a) => a.status === null)).toEqual([]);
    expect(drill.slowest).toBeLessThan(10_000);
    expectOnlyRetryableFailures(drill.load.runs);
    await expectNothingLost({
      rt: app.runtime,
      partnerId: drill.partnerId,
      runs: drill.load.runs,
      receiver,
      path: DRILL_PATH,
    });
  }, 240_000);
  return () => app;
}
