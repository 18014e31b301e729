import type { Session } from 'fastify';
import type { Redis } from '../../shared/redis/client';
import type { Clock } from '../../shared/clock';

// @fastify/session keeps its sessions here: one Redis key a session, expiring after the idle
// timeout, and a set of each account's session ids so that disabling an account or changing its
// password ends every session it has. A revocation also leaves a mark: a save of a session issued
// before the mark (a request that was running while it came) is refused, so nothing resurrects it.
const SAVE = `
local mark = redis.call('GET', KEYS[3])
if mark and ARGV[4] ~= '' and tonumber(mark) > tonumber(ARGV[4]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if KEYS[2] ~= KEYS[1] then
  redis.call('SADD', KEYS[2], ARGV[5])
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
end
return 1`;

export interface SessionTimeouts {
  idleMs: number;
  absoluteMs: number;
}

export class RedisSessionStore {
  constructor(private readonly redis: Redis, private readonly timeouts: SessionTimeouts, private readonly clock: Clock) {}

  set(sessionId: string, session: Session, callback: (err?: unknown) => void): void {
    this.save(sessionId, session).then(() => callback(), callback);
  }

  // Reading a session starts its idle time again, in the same command (GETEX: Redis 6.2 and later).
  // The absolute timeout is the request's check (authenticate.ts), so the key may outlive it by up
  // to the idle timeout, refused all the while.
  get(sessionId: string, callback: (err: unknown, session?: Session | null) => void): void {
    this.redis.getex(sessionKey(sessionId), 'PX', this.timeouts.idleMs)
      .then((json) => callback(null, json === null ? null : (JSON.parse(json) as Session)), callback);
  }

  destroy(sessionId: string, callback: (err?: unknown) => void): void {
    this.redis.del(sessionKey(sessionId)).then(() => callback(), callback);
  }

  // Ends every session of an account (from any instance), including requests still running.
  async revokeAll(accountId: string): Promise<void> {
    const ids = await this.redis.smembers(accountSessionsKey(accountId));
    await this.redis.multi()
      .set(revokedKey(accountId), String(this.clock.now().getTime()), 'PX', this.timeouts.absoluteMs)
      .del(accountSessionsKey(accountId), ...ids.map(sessionKey))
      .exec();
  }

  private async save(sessionId: string, session: Session): Promise<void> {
    const account = session.account_id ?? '';
    const keys = [sessionKey(sessionId), account ? accountSessionsKey(account) : sessionKey(sessionId), revokedKey(account)];
    await this.redis.eval(SAVE, 3, ...keys, JSON.stringify(session), this.ttlMs(session), this.timeouts.absoluteMs, account ? String(session.issued_at ?? 0) : '', sessionId);
  }

  // The idle timeout, never past the absolute one.
  private ttlMs(session: Session): number {
    const issued = session.issued_at ?? this.clock.now().getTime();
    const left = issued + this.timeouts.absoluteMs - this.clock.now().getTime();
    return Math.max(1, Math.min(this.timeouts.idleMs, left));
  }
}

const sessionKey = (id: string): string => `sess:${id}`;
const accountSessionsKey = (accountId: string): string => `sess-of:${accountId}`;
const revokedKey = (accountId: string): string => `sess-revoked:${accountId}`;
