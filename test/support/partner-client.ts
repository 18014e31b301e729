import { randomUUID } from 'node:crypto';
import { sign } from '../../src/shared/crypto/signature';

export interface PartnerCredentials {
  api_key: string;
  hmac_secret: string;
}

export interface HttpResult<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

export interface SendOptions {
  idempotencyKey?: string | null;
  timestamp?: number | string | null;
  signature?: string | null;
  apiKey?: string | null;
  contentType?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

// Talks to the partner API over a real socket exactly as a partner would: Bearer key, HMAC of the
// raw body, Unix-seconds timestamp and an Idempotency-Key. Options override or drop any header.
export class PartnerClient {
  constructor(
    private readonly baseUrl: string,
    private readonly creds: PartnerCredentials,
  ) {}

  async submitLead(body: unknown, opts: SendOptions = {}): Promise<HttpResult> {
    const raw = typeof body === 'string' ? body : JSON.stringify(body);
    return this.send('POST', '/api/v1/inbound/leads', raw, opts);
  }

  async leadStatus(externalId: string, opts: SendOptions = {}): Promise<HttpResult> {
    return this.send('GET', `/api/v1/inbound/leads/${encodeURIComponent(externalId)}/status`, '', opts);
  }

  // A reporting call (GET /api/v1/leads or /api/v1/reports) with its query, signed over the empty body.
  async report(path: 'leads' | 'reports', query: Record<string, string | number> = {}, opts: SendOptions = {}) {
    const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
    return this.send('GET', `/api/v1/${path}${qs ? `?${qs}` : ''}`, '', opts);
  }

  async send(method: string, path: string, raw: string, opts: SendOptions): Promise<HttpResult> {
    const headers: Record<string, string> = {};
    const set = (name: string, value: string | number | null | undefined, fallback: string) => {
      if (value === null) return;
      headers[name] = value === undefined ? fallback : String(value);
    };
    set(
      'authorization',
      opts.apiKey === undefined ? undefined : opts.apiKey && `Bearer ${opts.apiKey}`,
      `Bearer ${this.creds.api_key}`,
    );
    set('x-signature', opts.signature, sign(this.creds.hmac_secret, raw));
    set('x-timestamp', opts.timestamp, String(Math.floor(Date.now() / 1000)));
    if (method === 'POST') {
      set('idempotency-key', opts.idempotencyKey, randomUUID());
      headers['content-type'] = opts.contentType ?? 'application/json';
    }
    Object.assign(headers, opts.headers ?? {});
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      body: method === 'GET' ? undefined : raw,
      signal: opts.signal,
    });
    return { status: res.status, headers: res.headers, body: answerBody(await res.text()) };
  }
}

// An answer's JSON body, or { raw } when it is not JSON (an empty body, a proxy's page).
function answerBody(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { raw: text };
  }
}

// The answer to a lead without a phone: it proves a request got past authentication, with no
// processor needed (422 validation_error, not 401/403).
export const PAST_AUTHENTICATION = {
  status: 422,
  body: { id: null, status: 'validation_error', reason: 'missing_required:phone' },
};
