import { loadConfig } from '../../src/shared/config';
import { CallbackReceiver } from './callback-receiver';
import { startChildRole, type ChildRole } from './child-role';
import { expectNothingLost, expectOnlyRetryableFailures, type DrillReport } from './drill-checks';
import { DRILL_ENV, DRILL_PATH, KILLED_ROLE_ENV, drillPartner } from './drill-partner';
import { SteadyLoad } from './steady-load';
import { startTestApp, type TestApp } from './test-app';
import { testEnv } from './test-config';

export interface DispatcherDrill {
  app: TestApp; // ingress and processor, in this process
  receiver: CallbackReceiver;
  dispatcher(): ChildRole | undefined;
  // kill -9 of the dispatcher's process, waiting until it is gone.
  kill(): Promise<void>;
  // A graceful stop (SIGTERM), waiting until the process has exited.
  stop(): Promise<void>;
  restart(): Promise<void>;
  // Steady intake for a new drill partner while `interrupt` (kill or stop) hits the dispatcher
  // `times` times, each once 10 more callbacks have arrived, restarting it at once. Then checks that
  // nothing was lost; returns when each interruption was done and the report.
  interruptUnderLoad(
    times: number,
    interrupt: () => Promise<void>,
  ): Promise<{ interrupted: number[]; report: DrillReport }>;
}

// The setup of the dispatcher kill and stop drills: ingress and processor here, the dispatcher as its own OS
// process (src/main.ts) that the drill kills or stops and starts again. Registers its jest hooks.
export function dispatcherDrill(): DispatcherDrill {
  const env = testEnv(DRILL_ENV);
  const childEnv = { ...env, ...KILLED_ROLE_ENV };
  let child: ChildRole | undefined;
  const end = async (signal: NodeJS.Signals): Promise<void> => {
    await child?.kill(signal);
    child = undefined;
  };
  const drill = {
    dispatcher: () => child,
    kill: () => end('SIGKILL'),
    stop: () => end('SIGTERM'),
    async restart() {
      child = await startChildRole('dispatcher', childEnv);
    },
    async interruptUnderLoad(times: number, interrupt: () => Promise<void>) {
      const { app, receiver } = drill;
      const partner = await drillPartner(app.runtime, receiver);
      const load = new SteadyLoad({ targets: () => [app.url], creds: partner.creds, perSecond: 8 }).start();
      const interrupted: number[] = [];
      let expected = 10;
      for (let i = 0; i < times; i++) {
        await receiver.waitFor(DRILL_PATH, expected, 60_000);
        await interrupt();
        interrupted.push(Date.now());
        await drill.restart();
        expected = receiver.at(DRILL_PATH).length + 10;
      }
      await new Promise((r) => setTimeout(r, 1000));
      await load.stop();
      expectOnlyRetryableFailures(load.runs);
      const report = await expectNothingLost({
        rt: app.runtime,
        partnerId: partner.id,
        runs: load.runs,
        receiver,
        path: DRILL_PATH,
        timeoutMs: 90_000,
      });
      return { interrupted, report };
    },
  } as DispatcherDrill;

  beforeAll(async () => {
    drill.receiver = await new CallbackReceiver().start();
    [drill.app, child] = await Promise.all([
      startTestApp({}, loadConfig({ ...env, ROLE: 'ingress,processor' })),
      startChildRole('dispatcher', childEnv),
    ]);
  }, 90_000);

  afterAll(async () => {
    await child?.kill();
    await drill.receiver?.stop();
    await drill.app?.destroy();
  });
  return drill;
}
