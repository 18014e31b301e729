import { randomUUID } from 'node:crypto';
import { LeadIntakeError } from './errors.js';
import type {
  DayReport,
  ErrorBody,
  InboundLead,
  IntakeResult,
  LeadStatus,
  ListLeadsQuery,
  PartnerLead,
} from './generated/partner-api.js';
import { DEFAULT_RETRY, nextWaitMs, retryAfterSeconds, type Answer, type RetryPolicy } from './retry.js';
import { hmacSha256 } from './signing.js';

export interface ClientOptions {
  baseUrl: string; // the partner API's base URL, ending in /api
  apiKey: string;
  hmacSecret: string;
  retry?: Partial<RetryPolicy>;
  attemptTimeoutMs?: number;
  // Told before each wait, e.g. to log it.
  onRetry?: (info: RetryInfo) => void;
}

export interface RetryInfo {
  attempt: number;
  status: number | null; // null: no answer
  error: string | null;
  retryAfterS: number | null; // what the answer asked for
  waitMs: number; // what the client waits: never less than asked
}

export type SendResult =
  | { outcome: 'accepted'; leadId: string; replay: boolean; idempotencyKey: string; attempts: number }
  | {
      outcome: 'duplicate';
      matchedLeadId: string;
      reason: string;
      replay: boolean;
      idempotencyKey: string;
      attempts: number;
    }
  | {
      outcome: 'refused';
      status: 'validation_error' | 'rejected';
      reason: string;
      replay: boolean;
      idempotencyKey: string;
      attempts: number;
    };

// The filters of GET /v1/leads, as the partner document names them (ListLeadsQuery); from and to bound
// created_at (from inclusive, to exclusive) and may be given as dates.
export type LeadFilters = Omit<ListLeadsQuery, 'cursor' | 'limit' | 'from' | 'to'> & {
  from?: string | Date;
  to?: string | Date;
};

// cursor: the nextCursor of the page before; limit: 1-200, the server's default 50.
export type PageOptions = Pick<ListLeadsQuery, 'cursor' | 'limit'>;

export interface LeadPage {
  items: PartnerLead[];
  nextCursor: string | null; // null on the last page
}

interface Reply {
  status: number;
  body: unknown;
  attempts: number;
}

export class LeadIntakeClient {
  private readonly base: string;
  private readonly policy: RetryPolicy;

  constructor(private readonly options: ClientOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '');
    this.policy = { ...DEFAULT_RETRY, ...options.retry };
  }

  // Sends one lead. The key (made here when not given) stays the same on every retry, so a retried
  // request is answered once; the bytes signed are the bytes sent.
  async sendLead(lead: InboundLead, opts: { idempotencyKey?: string } = {}): Promise<SendResult> {
    const idempotencyKey = opts.idempotencyKey ?? randomUUID();
    const body = JSON.stringify(lead);
    const reply = await this.request('POST', '/v1/inbound/leads', body, {
      'content-type': 'application/json',
      'idempotency-key': idempotencyKey,
    });
    return sendResult(reply, idempotencyKey);
  }

  async leadStatus(externalId: string): Promise<LeadStatus> {
    return (await this.get(`/v1/inbound/leads/${encodeURIComponent(externalId)}/status`, {})).body as LeadStatus;
  }

  // One page of the partner's own leads, newest first. A filter checked entry by entry may answer a
  // short (even empty) page that is not the last: only a null nextCursor ends the list.
  async listLeads(filters: LeadFilters = {}, opts: PageOptions = {}): Promise<LeadPage> {
    const reply = await this.get('/v1/leads', { ...filters, ...opts });
    const page = reply.body as { items: PartnerLead[]; next_cursor: string | null };
    return { items: page.items, nextCursor: page.next_cursor };
  }

  // Every lead the filters match, a page at a time, each page fetched when the one before is used up.
  async *allLeads(filters: LeadFilters = {}, opts: Omit<PageOptions, 'cursor'> = {}): AsyncGenerator<PartnerLead> {
    let cursor: string | undefined;
    do {
      const page = await this.listLeads(filters, { ...opts, cursor });
      yield* page.items;
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }

  // The partner's traffic per reporting day (its time_zone) from `from` to `to` (YYYY-MM-DD, both included).
  async reports(from: string, to: string): Promise<DayReport> {
    return (await this.get('/v1/reports', { from, to })).body as DayReport;
  }

  private async get(path: string, params: Record<string, string | number | Date | undefined>): Promise<Reply> {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) {
      if (value !== undefined) query.set(name, value instanceof Date ? value.toISOString() : String(value));
    }
    const qs = query.toString();
    const reply = await this.request('GET', qs ? `${path}?${qs}` : path, '', {});
    if (reply.status !== 200) throw unexpected(reply);
    return reply;
  }

  private async request(method: string, path: string, body: string, headers: Record<string, string>): Promise<Reply> {
    const started = Date.now();
    const signature = `sha256=${hmacSha256(this.options.hmacSecret, body).toString('hex')}`;
    for (let attempt = 1; ; attempt++) {
      const got = await this.attempt(method, path, body, { ...headers, 'x-signature': signature }, started);
      const remaining = this.policy.deadlineMs - (Date.now() - started);
      const wait = nextWaitMs(got.answer, attempt, remaining, this.policy, Math.random(), Date.now());
      if (wait === null) {
        if (got.reply && got.answer.error === null) return { ...got.reply, attempts: attempt };
        throw errorOf(got);
      }
      const { status, error, retryAfter } = got.answer;
      this.options.onRetry?.({
        attempt,
        status,
        error,
        retryAfterS: retryAfterSeconds(retryAfter, Date.now()),
        waitMs: wait,
      });
      await new Promise((r) => setTimeout(r, wait));
    }
  }

  private async attempt(
    method: string,
    path: string,
    body: string,
    headers: Record<string, string>,
    started: number,
  ): Promise<Attempt> {
    const remaining = Math.max(1, this.policy.deadlineMs - (Date.now() - started));
    try {
      const res = await fetch(`${this.base}${path}`, {
        method,
        headers: {
          ...headers,
          authorization: `Bearer ${this.options.apiKey}`,
          'x-timestamp': String(Math.floor(Date.now() / 1000)),
        },
        body: method === 'GET' ? undefined : body,
        signal: AbortSignal.timeout(Math.min(this.options.attemptTimeoutMs ?? 10_000, remaining)),
      });
      const text = await res.text();
      const parsed = parseJson(text);
      const error = isErrorBody(parsed) ? parsed.error : null;
      return {
        answer: { status: res.status, error, retryAfter: res.headers.get('retry-after') },
        reply: { status: res.status, body: parsed ?? text },
      };
    } catch (e) {
      return { answer: { status: null, error: null, retryAfter: null }, failure: (e as Error).message };
    }
  }
}

interface Attempt {
  answer: Answer;
  reply?: { status: number; body: unknown };
  failure?: string;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isErrorBody(body: unknown): body is ErrorBody {
  return typeof body === 'object' && body !== null && typeof (body as ErrorBody).error === 'string';
}

function errorOf(got: Attempt): LeadIntakeError {
  if (!got.reply) return new LeadIntakeError('network_error', `No answer: ${got.failure ?? 'unknown'}`);
  const { status, body } = got.reply;
  if (!isErrorBody(body)) return unexpected({ status, body, attempts: 0 });
  return new LeadIntakeError(body.error, body.message, status, retryAfterSeconds(got.answer.retryAfter, Date.now()));
}

function unexpected(reply: Reply): LeadIntakeError {
  return new LeadIntakeError('unexpected_answer', `HTTP ${reply.status}: ${JSON.stringify(reply.body)}`, reply.status);
}

function sendResult(reply: Reply, idempotencyKey: string): SendResult {
  const r = reply.body as IntakeResult;
  const common = { replay: r.replay === true, idempotencyKey, attempts: reply.attempts };
  if (r.status === 'accepted' && r.id) return { outcome: 'accepted', leadId: r.id, ...common };
  if (r.status === 'duplicate' && r.id)
    return { outcome: 'duplicate', matchedLeadId: r.id, reason: r.reason ?? '', ...common };
  if ((r.status === 'validation_error' || r.status === 'rejected') && r.reason)
    return { outcome: 'refused', status: r.status, reason: r.reason, ...common };
  throw unexpected(reply);
}
