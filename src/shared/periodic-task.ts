import type { Logger } from './logger';

export interface PeriodicTask {
  // Runs it now, not waiting for the interval; asked during a run, it runs once more after it.
  soon(): void;
  stop(): Promise<void>;
}

// Runs `work` every intervalMs, never two runs at once; a failed run is logged and the next one
// tries again. stop() waits for a run in progress.
export function everyInterval(
  name: string,
  intervalMs: number,
  work: () => Promise<void>,
  logger: Logger,
): PeriodicTask {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  const run = (): void => {
    running ??= work()
      .catch((err: unknown) => logger.warn({ err: (err as Error).message, task: name }, 'periodic task failed'))
      .finally(() => {
        running = null;
        if (again && !stopped) {
          again = false;
          run();
        }
      });
  };
  const timer = setInterval(run, intervalMs);
  return {
    soon() {
      if (stopped) return;
      if (running) again = true;
      else run();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      while (running) await running;
    },
  };
}
