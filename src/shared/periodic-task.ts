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

// Runs `work` when asked (soon()), and otherwise when the work itself says it is next due (the
// time it returns), at the latest `maxWaitMs` after its last run: a safety net for what is due
// without this process hearing of it (written by another process, or before a restart). A task
// with nothing due costs one run per maxWaitMs. Never two runs at once; a failed run is logged and
// tried again after maxWaitMs.
export function whenDue(
  name: string,
  maxWaitMs: number,
  work: () => Promise<Date | null>,
  logger: Logger,
): PeriodicTask {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  const wakeAt = (next: Date | null): void => {
    if (timer) clearTimeout(timer);
    const waitMs = next === null ? maxWaitMs : Math.min(maxWaitMs, Math.max(0, next.getTime() - Date.now()));
    timer = stopped ? null : setTimeout(run, waitMs);
  };
  const run = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = work()
      .catch((err: unknown) => {
        logger.warn({ err: (err as Error).message, task: name }, 'periodic task failed');
        return null;
      })
      .then((next) => {
        running = null;
        if (again && !stopped) {
          again = false;
          run();
        } else wakeAt(next);
      });
  };
  wakeAt(new Date());
  return {
    soon() {
      if (!stopped) run();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      while (running) await running;
    },
  };
}
