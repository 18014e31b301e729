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
// address with too many 401s in a minute gets 429 before its key is looked up.

export interface Caller {
  headers: IncomingHttpHeaders;
  ip: string;
}

export async function identifyPartner(
  caller: Caller,
  deps: { partners: PartnerDirectory; authFailures: AuthFailureLimiter },
  toleranceS: number,
  nowMs: number,
): Promise<PartnerDoc> {
  const { headers } = caller;
  const admitted = await deps.authFailures.admits(caller.ip);
  if (!admitted.allowed) {
    throw new ApiError('too_many_auth_failures', { seconds: admitted.retryAfterS }, { 'retry-after': String(admitted.retryAfterS) });
  }
  const apiKey = bearerToken(headers.authorization);
  const partner = apiKey ? await deps.partners.byApiKey(apiKey) : null;
  if (!partner) {
    await deps.authFailures.recordFailure(caller.ip);
    throw new ApiError(apiKey ? 'invalid_api_key' : 'missing_api_key');
  }
  if (partner.disabled) throw new ApiError('partner_disabled');
  if (!timestampFresh(single(headers['x-timestamp']), nowMs, toleranceS)) {
    throw new ApiError('invalid_timestamp', { tolerance: toleranceS });
  }
  return partner;
}

// Over the exact bytes received, before anything parses them; constant-time, "sha256=" optional.
// During a rotation's grace the replaced hmac_secret still signs.
export function checkSignature(partner: PartnerDoc, partners: PartnerDirectory, raw: Buffer, headers: IncomingHttpHeaders): void {
  const header = single(headers['x-signature']);
  if (!partners.hmacSecrets(partner).some((secret) => verifySignature(secret, raw, header))) {
    throw new ApiError('invalid_signature');
  }
}

// A header sent twice is ambiguous: treated as absent.
function single(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
