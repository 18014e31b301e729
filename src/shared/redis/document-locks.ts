import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Redis } from './client';
import { luaScript, type LuaScript } from './lua-script';
import { DependencyError } from '../errors';

export class LockTimeoutError extends DependencyError {
  constructor(key: string) {
    super('lock_timeout', `could not lock ${key} in time`, { retriable: true });
    this.name = 'LockTimeoutError';
  }
}

// Per-document mutual exclusion across every instance, for the report counters
// (src/shared/reports/cell-store.ts): every processor writes every partner's counter documents, each
// write a compare-and-set on the document's version, and the locks queue those writers rather than
// letting all but one fail the check and compute their round again.
export class DocumentLocks {
  private readonly release: LuaScript;

  constructor(
    private readonly redis: Redis,
    private readonly ttlMs = 15_000,
    private readonly waitMs = 20_000,
  ) {
    this.release = luaScript(redis, 'leadIntakeLockRelease', join(__dirname, 'lock-release.lua'), 1);
  }

  async withLock<T>(key: string, work: () => Promise<T>): Promise<T> {
    return this.withLocks([key], work);
  }

  // Every key's lock, taken in one order (sorted) so two holders of overlapping sets never wait
  // for each other.
  async withLocks<T>(keys: readonly string[], work: () => Promise<T>): Promise<T> {
    const held: (() => Promise<void>)[] = [];
    try {
      for (const key of [...new Set(keys)].sort()) held.push(await this.acquire(key));
      return await work();
    } finally {
      for (const release of held.reverse()) await release();
    }
  }

  private async acquire(key: string): Promise<() => Promise<void>> {
    const lockKey = `lock:${key}`;
    const token = randomBytes(12).toString('hex');
    const deadline = Date.now() + this.waitMs;
    let pause = 2;
    while ((await this.redis.set(lockKey, token, 'PX', this.ttlMs, 'NX')) !== 'OK') {
      if (Date.now() > deadline) throw new LockTimeoutError(key);
      await new Promise((r) => setTimeout(r, pause));
      pause = Math.min(pause * 2, 50);
    }
    return async () => {
      await this.release([lockKey], [token]).catch(() => undefined);
    };
  }
}
