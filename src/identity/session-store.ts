import type { Session } from 'fastify';
import type { Redis } from '../shared/redis/client';
import type { Clock } from '../shared/clock';

// @fastify/session keeps its sessions here: one Redis key a session, expiring after the idle
// timeout, and a set of each account's session ids so that disabling an account or changing its
// password ends every session it has. A revocation is one step, its mark: every read and every save
// of a session issued before the mark is refused (a request that was running while it came, a
// sign-in that finished meanwhile), so nothing survives it or resurrects it; deleting keys is tidying.
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

// Each realm's sessions live under a key prefix of their own ('' for the manager's, 'portal:' for
// the portal's): a session id of one realm names nothing in the other.
export class RedisSessionStore {
  constructor(
    private readonly redis: Redis,
    private readonly timeouts: SessionTimeouts,
    private readonly clock: Clock,
    private readonly prefix = '',
  ) {}

  set(sessionId: string, session: Session, callback: (err?: unknown) => void): void {
    this.save(sessionId, session).then(() => callback(), callback);
  }

  // Reading a session starts its idle time again, in the same command (GETEX: Redis 6.2 and later).
  // The absolute timeout is the request's check (authenticate.ts), so the key may outlive it by up
  // to the idle timeout, refused all the while.
  get(sessionId: string, callback: (err: unknown, session?: Session | null) => void): void {
    this.read(sessionId).then((session) => callback(null, session), callback);
  }

  private async read(sessionId: string): Promise<Session | null> {
    const json = await this.redis.getex(this.key('sess', sessionId), 'PX', this.timeouts.idleMs);
    if (json === null) return null;
    const session = JSON.parse(json) as Session;
    const issued = session.issued_at ?? 0;
    // One past the absolute timeout is the request's to end, as session_expired (session-check.ts).
    if (!session.account_id || issued + this.timeouts.absoluteMs <= this.clock.now().getTime()) return session;
    const mark = await this.redis.get(this.key('sess-revoked', session.account_id));
    if (mark === null || Number(mark) <= issued) return session;
    await this.redis.del(this.key('sess', sessionId));
    return null;
  }

  destroy(sessionId: string, callback: (err?: unknown) => void): void {
    this.redis.del(this.key('sess', sessionId)).then(() => callback(), callback);
  }

  // Ends every session of an account (from any instance), including requests still running: the mark first,
  // which alone revokes, then the keys it names.
  async revokeAll(accountId: string): Promise<void> {
    const now = String(this.clock.now().getTime());
    await this.redis.set(this.key('sess-revoked', accountId), now, 'PX', this.timeouts.absoluteMs);
    const ids = await this.redis.smembers(this.key('sess-of', accountId));
    await this.redis.del(this.key('sess-of', accountId), ...ids.map((id) => this.key('sess', id)));
  }

  private async save(sessionId: string, session: Session): Promise<void> {
    const account = session.account_id ?? '';
    const keys = [
      this.key('sess', sessionId),
      account ? this.key('sess-of', account) : this.key('sess', sessionId),
      this.key('sess-revoked', account),
    ];
    await this.redis.eval(
      SAVE,
      3,
      ...keys,
      JSON.stringify(session),
      this.ttlMs(session),
      this.timeouts.absoluteMs,
      account ? String(session.issued_at ?? 0) : '',
      sessionId,
    );
  }

  // sess:<session id>, sess-of:<account id> (its sessions), sess-revoked:<account id> (the mark).
  private key(kind: 'sess' | 'sess-of' | 'sess-revoked', id: string): string {
    return `${this.prefix}${kind}:${id}`;
  }

  // The idle timeout, never past the absolute one.
  private ttlMs(session: Session): number {
    const issued = session.issued_at ?? this.clock.now().getTime();
    const left = issued + this.timeouts.absoluteMs - this.clock.now().getTime();
    return Math.max(1, Math.min(this.timeouts.idleMs, left));
  }
}
