import { join } from 'node:path';
import type { Config } from '../shared/config';
import type { PartnerDoc } from '../shared/mongo/documents';
import type { Redis } from '../shared/redis/client';
import { luaScript, type LuaScript } from '../shared/redis/lua-script';
import { quotaWindowKey } from '../shared/partners/partner-quota';
import { SLIDING_WINDOW_LUA } from '../shared/redis/sliding-window';
import { claimOf, recordKey, type Claim } from './idempotency';
import { IntakeCohort } from './intake-cohort';
import { LUA_DIR } from './lua-dir';
import { authFailuresKey, quotaFor, retryAfterSeconds, WINDOW_MS, type Endpoint } from './rate-limit';

export type Admission =
  | { kind: 'auth_failures'; retryAfterS: number }
  | { kind: 'rate_limited'; retryAfterS: number }
  | { kind: 'admitted'; claim: Claim | null };

// An authenticated, correctly signed request's admission in one Redis round trip (admission.lua):
// the address's failed authentications, the partner's sliding window per endpoint (spec 8: per
// partner, never per IP) and, for an intake request with a valid Idempotency-Key, its claim
// (spec 5.2), a processing claim older than the decision timeout being given up on. Shared by every
// ingress instance through Redis. Intake requests close together may be admitted in cohorts
// (INTAKE_COHORT_MS, intake-cohort.ts).
export class Admissions {
  private readonly script: LuaScript;
  private readonly cohort: IntakeCohort;
  private seq = 0;

  constructor(
    redis: Redis,
    private readonly instanceId: string,
    private readonly intake: Config['intake'],
  ) {
    this.script = luaScript(redis, 'leadIntakeAdmission', join(LUA_DIR, 'admission.lua'), 3, [
      SLIDING_WINDOW_LUA,
      join(LUA_DIR, 'idempotency-record.lua'),
    ]);
    this.cohort = new IntakeCohort(intake.cohortMs);
  }

  async admit(
    clientIp: string,
    partner: PartnerDoc,
    endpoint: Endpoint,
    claim?: { key: string; bodyHash: string },
  ): Promise<Admission> {
    const keys = [
      authFailuresKey(clientIp),
      quotaWindowKey(endpoint, partner._id),
      claim ? recordKey(partner._id, claim.key) : authFailuresKey(clientIp),
    ];
    const { intake } = this;
    const args = [
      intake.authFailuresPerMinute,
      WINDOW_MS,
      quotaFor(partner, endpoint, intake),
      `${this.instanceId}:${++this.seq}`,
      claim ? '1' : '0',
      claim?.bodyHash ?? '',
      intake.replyTimeoutMs,
      intake.idempotencyTtlS,
    ];
    if (endpoint === 'intake') await this.cohort.join();
    const reply = (await this.script(keys, args)) as string[];
    const [kind, retryMs] = reply;
    if (kind === 'auth_failures' || kind === 'rate_limited')
      return { kind, retryAfterS: retryAfterSeconds(Number(retryMs ?? WINDOW_MS)) };
    return { kind: 'admitted', claim: kind === 'admitted' ? null : claimOf(reply) };
  }
}
