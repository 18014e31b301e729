import type { Logger } from './logger';

export interface PeriodicTask {
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
  const timer = setInterval(() => {
    running ??= work()
      .catch((err: unknown) => logger.warn({ err: (err as Error).message, task: name }, 'periodic task failed'))
      .finally(() => {
        running = null;
      });
  }, intervalMs);
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
