import type { IncomingHttpHeaders } from 'node:http';
import { timestampFresh, verifySignature } from '../shared/crypto/signature';
import { ApiError } from '../shared/errors';
import { bearerToken } from '../shared/http/bearer-token';
import type { PartnerDoc } from '../shared/mongo/documents';
import type { PartnerDirectory } from '../shared/partners/partner-directory';
import type { AuthFailureLimiter } from './rate-limit';

// Partner authentication (spec 5.1). 401 means "we cannot tell who you are" (no or unknown key);
// 403 means "we know you, but this request is not acceptable" (disabled partner, stale or missing
// timestamp, bad signature). Each answer names what to fix and nothing about the partner. An
// address with too many 401s in a minute gets 429 whatever its key: before an unknown key is looked
// up; for a key the cache knows, with the request's admission (admission.ts) or before a 403.

export interface Caller {
  headers: IncomingHttpHeaders;
  ip: string;
}

export interface AuthDeps {
  partners: PartnerDirectory;
  authFailures: AuthFailureLimiter;
}

export interface Identified {
  partner: PartnerDoc;
  authFailuresChecked: boolean;
}

export async function identifyPartner(
  caller: Caller,
  deps: AuthDeps,
  toleranceS: number,
  nowMs: number,
): Promise<Identified> {
  const { headers } = caller;
  const apiKey = bearerToken(headers.authorization);
  const known = apiKey ? deps.partners.cachedByApiKey(apiKey) : undefined;
  if (!known) await refuseIfThrottled(deps, caller.ip);
  const partner = known ?? (apiKey ? await deps.partners.byApiKey(apiKey) : null);
  if (!partner) {
    await deps.authFailures.recordFailure(caller.ip);
    throw new ApiError(apiKey ? 'invalid_api_key' : 'missing_api_key');
  }
  const authFailuresChecked = !known;
  if (partner.disabled) return refused(authFailuresChecked, deps, caller.ip, new ApiError('partner_disabled'));
  if (!timestampFresh(single(headers['x-timestamp']), nowMs, toleranceS)) {
    return refused(authFailuresChecked, deps, caller.ip, new ApiError('invalid_timestamp', { tolerance: toleranceS }));
  }
  return { partner, authFailuresChecked };
}

// A refusal of a known partner's request: 429 instead when the address is over its failed
// authentications and that was not checked yet.
export async function refused(authFailuresChecked: boolean, deps: AuthDeps, ip: string, err: ApiError): Promise<never> {
  if (!authFailuresChecked) await refuseIfThrottled(deps, ip);
  throw err;
}

async function refuseIfThrottled(deps: AuthDeps, ip: string): Promise<void> {
  const admitted = await deps.authFailures.admits(ip);
  if (!admitted.allowed) throw tooManyAuthFailures(admitted.retryAfterS);
}

export function tooManyAuthFailures(retryAfterS: number): ApiError {
  return new ApiError('too_many_auth_failures', { seconds: retryAfterS }, { 'retry-after': String(retryAfterS) });
}

// Over the exact bytes received, before anything parses them; constant-time, "sha256=" optional.
// During a rotation's grace the replaced hmac_secret still signs.
export function signedCorrectly(
  partner: PartnerDoc,
  partners: PartnerDirectory,
  raw: Buffer,
  headers: IncomingHttpHeaders,
): boolean {
  const header = single(headers['x-signature']);
  return partners.hmacSecrets(partner).some((secret) => verifySignature(secret, raw, header));
}

// A header sent twice is ambiguous: treated as absent.
function single(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
