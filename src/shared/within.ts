// Settles as `work` does, or rejects with `message` once `ms` have passed. The work itself goes on:
// a late failure of work given up on is not an unhandled rejection.
export function within<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  work.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
