import { asServiceError } from './driver-errors';

// Whether the same work may succeed when tried again: our errors say so themselves, a driver's
// through the one adapter (driver-errors.ts); anything else is a bug and fails the same way again.
export function isRetriable(err: unknown): boolean {
  return asServiceError(err)?.retriable ?? false;
}

const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5000;

// Runs `work` until it succeeds, waiting longer each time it fails with a retriable error (a server
// restarting): for writes whose loss would lose work, where the caller holds a Kafka offset back
// meanwhile. A non-retriable error is thrown at once.
export async function untilDone<T>(
  work: () => Promise<T>,
  onRetry: (err: unknown, attempt: number) => void,
  retriable: (err: unknown) => boolean = isRetriable,
): Promise<T> {
  let backoff = FIRST_BACKOFF_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (!retriable(err)) throw err;
      onRetry(err, attempt);
      await new Promise((r) => setTimeout(r, backoff));
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }
}
