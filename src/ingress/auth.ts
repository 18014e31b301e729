import type { IncomingHttpHeaders } from 'node:http';
import { timestampFresh, verifySignature } from '../shared/crypto/signature';
import { ApiError } from '../shared/errors';
import { bearerToken } from '../shared/http/bearer-token';
import type { PartnerDoc } from '../shared/mongo/documents';
import type { PartnerDirectory } from '../shared/partners/partner-directory';

// Partner authentication (spec 5.1). 401 means "we cannot tell who you are" (no or unknown key);
// 403 means "we know you, but this request is not acceptable" (disabled partner, stale or missing
// timestamp, bad signature). Each answer names what to fix and nothing about the partner.

export async function identifyPartner(
  headers: IncomingHttpHeaders,
  partners: PartnerDirectory,
  toleranceS: number,
  nowMs: number,
): Promise<PartnerDoc> {
  const apiKey = bearerToken(headers.authorization);
  if (!apiKey) throw new ApiError('missing_api_key');
  const partner = await partners.byApiKey(apiKey);
  if (!partner) throw new ApiError('invalid_api_key');
  if (partner.disabled) throw new ApiError('partner_disabled');
  if (!timestampFresh(single(headers['x-timestamp']), nowMs, toleranceS)) {
    throw new ApiError('invalid_timestamp', { tolerance: toleranceS });
  }
  return partner;
}

// Over the exact bytes received, before anything parses them; constant-time, "sha256=" optional.
export function checkSignature(partner: PartnerDoc, partners: PartnerDirectory, raw: Buffer, headers: IncomingHttpHeaders): void {
  if (!verifySignature(partners.hmacSecret(partner), raw, single(headers['x-signature']))) {
    throw new ApiError('invalid_signature');
  }
}

// A header sent twice is ambiguous: treated as absent.
function single(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
