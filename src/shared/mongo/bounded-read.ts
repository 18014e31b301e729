import { DependencyError } from '../errors';

// A MongoDB read someone is waiting on (a partner's request) gives up after `ms`. The driver waits
// for a command's answer as long as the server keeps the connection open (it has no socket timeout
// by default, and 7.x ignores timeoutMS), so a server that is up but answers nothing on one
// database (FerretDB once wedged a database for good: scripts/services/ferretdb/patches/0005) or a
// primary that stops answering held the request, its pooled connection and every request sharing
// the read for ever. Aborting the driver's `signal` fails the read and closes its connection (the
// pool opens another); the caller gets a DependencyError, which the HTTP APIs answer with 503.
export async function boundedRead<T>(ms: number, what: string, read: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const signal = AbortSignal.timeout(ms);
  try {
    return await read(signal);
  } catch (err) {
    if (!signal.aborted) throw err;
    throw new DependencyError('mongodb_unavailable', `${what}: no answer from MongoDB within ${ms} ms`, {
      retriable: true,
      cause: err,
    });
  }
}
