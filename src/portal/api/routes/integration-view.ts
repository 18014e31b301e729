import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { refusedAddressRange } from '../../../dispatcher/commands';
import type { PartnerDoc } from '../../../shared/mongo/documents';
import { quotaFor, WINDOW_MS, type DefaultQuotas } from '../../../shared/partners/partner-quota';
import { postbackFor } from '../../../shared/postbacks/postback-template';
import { LEAD_EVENT_NAMES } from '../../../shared/store/delivery-list';
import type { ManagerOptions } from '../../../manager/services';

export const PARTNER_API_DOCUMENT = '/api/v1/inbound/openapi.json';

export interface Usage {
  intake: number;
  status: number;
}

export interface Snippet {
  language: string;
  file: string;
  code: string;
}

// How a partner talks to us and we to it, for its Integration page: where to send, how much, how
// to sign, where callbacks go, how to check them. Never a secret. Pure.
export function integrationView(
  partner: PartnerDoc,
  usage: Usage,
  o: { baseUrl: string; quotas: DefaultQuotas; toleranceS: number; snippets: readonly Snippet[] },
) {
  const scheme = partner.signature_scheme ?? 'spec';
  return {
    affiliate_id: partner._id,
    name: partner.name,
    mode: partner.mode ?? 'live',
    base_url: o.baseUrl,
    api_document_url: PARTNER_API_DOCUMENT,
    rate_limits: {
      window_seconds: WINDOW_MS / 1000,
      intake: { per_minute: quotaFor(partner, 'intake', o.quotas), used: usage.intake },
      status: { per_minute: quotaFor(partner, 'status', o.quotas), used: usage.status },
    },
    signing: {
      requests:
        'Authorization: Bearer <api_key>; X-Signature: sha256=<hex HMAC-SHA256 of the raw body with hmac_secret>; X-Timestamp: <Unix seconds>',
      timestamp_tolerance_seconds: o.toleranceS,
      callbacks:
        scheme === 'standard-webhooks'
          ? 'Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature v1 (HMAC-SHA256 of "id.timestamp.body" with callback_secret)'
          : 'X-Signature: sha256=<hex HMAC-SHA256 of the raw body with callback_secret>; X-Timestamp; X-Event-Id',
      callback_scheme: scheme,
    },
    callback_url: partner.callback_url,
    callback_events: partner.callback_events ?? [],
    postbacks: {
      events: LEAD_EVENT_NAMES.filter(
        (event) => postbackFor(partner.postbacks, partner.status_mapping, event) !== null,
      ),
      token_set: partner.postback_secret_enc !== undefined,
    },
    key_rotated_at: partner.key_rotated_at,
    previous_secrets_until: partner.previous_secrets?.until ?? null,
    verification_snippets: o.snippets,
  };
}

// The partner API's base URL as this request reached us (the portal and the partner API are served
// by the same process).
export function baseUrlOf(req: { protocol: string; host: string }): string {
  return `${req.protocol}://${req.host}/api/v1/inbound`;
}

// A callback URL a partner sets itself: the manager's rules (https, no credentials: settingsProblem)
// and, for a URL naming an IP, the dispatcher's address guard, so a private address is refused when
// saved and not only when called. A host name is judged by the guard at each attempt (it may change).
export function callbackAddressProblem(
  url: string,
  callbacks: Pick<ManagerOptions['config']['callbacks'], 'allowPrivateNetworks'>,
): string | null {
  if (callbacks.allowPrivateNetworks || !URL.canParse(url)) return null;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost'))
    return '/callback_url must reach a public address (localhost)';
  if (!/^[\d.]+$/.test(host) && !host.includes(':')) return null;
  const range = refusedAddressRange(host);
  return range === null ? null : `/callback_url must reach a public address (${range})`;
}

// The verification snippets the docs ship (docs/partners/snippets), each tested against real
// callbacks by the suite; read once, none when the docs are not beside the code.
const SNIPPET_DIR = join(__dirname, '..', '..', '..', '..', 'docs', 'partners', 'snippets');
const LANGUAGES: Record<string, string> = { '.ts': 'typescript', '.py': 'python', '.php': 'php' };

export function loadSnippets(dir = SNIPPET_DIR): Snippet[] {
  try {
    return readdirSync(dir)
      .filter((f) => LANGUAGES[extname(f)])
      .sort()
      .map((file) => ({ language: LANGUAGES[extname(file)]!, file, code: readFileSync(join(dir, file), 'utf8') }));
  } catch {
    return [];
  }
}
