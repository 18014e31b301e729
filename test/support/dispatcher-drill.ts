import { loadConfig } from '../../src/shared/config';
import { CallbackReceiver } from './callback-receiver';
import { startChildRole, type ChildRole } from './child-role';
import { DRILL_ENV, KILLED_ROLE_ENV } from './drill-partner';
import { startTestApp, type TestApp } from './test-app';
import { testEnv } from './test-config';

export interface DispatcherDrill {
  app: TestApp; // ingress and processor, in this process
  receiver: CallbackReceiver;
  dispatcher(): ChildRole | undefined;
  // kill -9 of the dispatcher's process; resolves with the time it was gone.
  kill(): Promise<number>;
  // A graceful stop (SIGTERM), waiting until the process has exited.
  stop(): Promise<void>;
  restart(): Promise<void>;
}

// The setup of the dispatcher kill drills: ingress and processor here, the dispatcher as its own OS
// process (src/main.ts) that the drill kills and starts again. Registers its jest hooks.
export function dispatcherDrill(): DispatcherDrill {
  const env = testEnv(DRILL_ENV);
  const childEnv = { ...env, ...KILLED_ROLE_ENV };
  let child: ChildRole | undefined;
  const drill = {
    dispatcher: () => child,
    async kill() {
      await child?.kill('SIGKILL');
      child = undefined;
      return Date.now();
    },
    async stop() {
      await child?.kill('SIGTERM');
      child = undefined;
    },
    async restart() {
      child = await startChildRole('dispatcher', childEnv);
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
