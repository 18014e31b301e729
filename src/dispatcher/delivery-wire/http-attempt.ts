import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { Agent, request, type Dispatcher } from 'undici';
import { refusedAddressRange } from './address-guard';
import {
  failedAttempt,
  RETRY_AFTER_STATUSES,
  retryAfterMs,
  type AttemptFailure,
  type AttemptResult,
} from '../retry-policy';
import { ServiceError } from '../../shared/errors';

// What every attempt to a partner's endpoint obeys (CALLBACK_* settings).
export interface WireRules {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  allowHttp: boolean;
  responseBodyLimit: number;
  now?: () => number;
  // Whether the request may still go (the sender's lease on the work: assignment-work.ts); asked
  // once, as its bytes are about to be written. False: withheld, nothing sent.
  mayGo?: () => boolean;
}

// The rules alone, from the dispatcher's callbacks config (which holds more).
export function wireRules(c: WireRules): WireRules {
  return {
    timeoutMs: c.timeoutMs,
    allowPrivateNetworks: c.allowPrivateNetworks,
    allowHttp: c.allowHttp,
    responseBodyLimit: c.responseBodyLimit,
  };
}

export interface HttpAttemptOptions extends WireRules {
  url: string;
  method: 'POST' | 'GET';
  headers: Record<string, string>;
  body?: Buffer;
}

// One request to a partner's endpoint (a callback or a postback) under the rules both share: https
// unless allowed otherwise, the SSRF guard, one timeout for the whole attempt (body included), the
// answer's first responseBodyLimit characters kept. A 429 or 503 with Retry-After reports the wait it
// asked for. Redirects are not followed (a 3xx is the answer): undici follows them only through its
// redirect interceptor, which this agent is not composed with. Never throws: every failure is an
// AttemptResult with an error.
export async function attemptRequest(opts: HttpAttemptOptions): Promise<AttemptResult> {
  const now = opts.now ?? Date.now;
  const started = now();
  const failed = (failure: AttemptFailure, httpStatus: number | null = null): AttemptResult =>
    failedAttempt(failure, now() - started, httpStatus);

  const target = checkTarget(opts.url, opts.allowHttp, opts.allowPrivateNetworks);
  if (!(target instanceof URL)) return failed(target);

  const abort = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, opts.timeoutMs);
  let httpStatus: number | null = null;
  try {
    const agent = agentFor(opts.allowPrivateNetworks, opts.timeoutMs);
    const res = await request(target, {
      method: opts.method,
      headers: opts.headers,
      body: opts.body,
      signal: abort.signal,
      dispatcher: opts.mayGo ? agent.compose(checkedAtTheWire(opts.mayGo)) : agent,
    });
    httpStatus = res.statusCode;
    const responseBody = await readAtMost(res.body, opts.responseBodyLimit);
    const asked = RETRY_AFTER_STATUSES.has(httpStatus) ? retryAfterMs(single(res.headers['retry-after']), now()) : null;
    return { httpStatus, failure: null, error: null, responseBody, durationMs: now() - started, retryAfterMs: asked };
  } catch (err) {
    if (err instanceof WithheldError) return failed({ kind: 'withheld' });
    return failed(timedOut ? { kind: 'timeout' } : describeSendError(err), httpStatus);
  } finally {
    clearTimeout(timer);
  }
}

// The URL as undici gets it, or the error that refuses it. Host names are checked at connect time
// (guardedLookup); an IP literal never goes through a lookup, so it is checked here.
function checkTarget(raw: string, allowHttp: boolean, allowPrivateNetworks: boolean): URL | AttemptFailure {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { kind: 'invalid_url' };
  }
  if (url.protocol === 'http:' && !allowHttp) return { kind: 'https_required' };
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { kind: 'invalid_url', scheme: url.protocol.replace(/:$/, '') };
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!allowPrivateNetworks && isIP(host) !== 0) {
    const range = refusedAddressRange(host);
    if (range) return { kind: 'address_refused', range };
  }
  return url;
}

class AddressRefusedError extends ServiceError {
  constructor(readonly range: string) {
    super('address_refused', `callback address refused: ${range}`, { retriable: false });
  }
}

// Checks every address a host name resolves to, at connect time, so a DNS answer that changes
// between a check and the connection (rebinding) cannot reach an internal address.
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '');
    const refused = addresses.map((a) => refusedAddressRange(a.address)).find((r) => r !== null);
    if (refused) return callback(new AddressRefusedError(refused), '');
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '');
    return callback(null, first.address, first.family);
  });
};

class WithheldError extends Error {
  override readonly name = 'WithheldError';
}

// undici calls onRequestStart on the connection the request got, right before it writes the
// request: the last moment anything of ours runs before its bytes leave. Whatever the attempt
// waited for until then (the partner's read, a connection, a process frozen and thawed), the lease
// is asked there; an abort there writes nothing.
const checkedAtTheWire =
  (mayGo: () => boolean): Dispatcher.DispatcherComposeInterceptor =>
  (dispatch) =>
  (options, handler) =>
    dispatch(
      options,
      new Proxy(handler, {
        get: (target, key, receiver) =>
          key === 'onRequestStart'
            ? (controller: Dispatcher.DispatchController, context: object) => {
                if (!mayGo()) return controller.abort(new WithheldError('the lease ran out before the request went'));
                return target.onRequestStart?.(controller, context);
              }
            : Reflect.get(target, key, receiver),
      }),
    );

// Pooled keep-alive connections, one agent per guard setting and timeout.
const agents = new Map<string, Agent>();

function agentFor(allowPrivateNetworks: boolean, timeoutMs: number): Agent {
  const key = `${allowPrivateNetworks}:${timeoutMs}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = new Agent({
      connect: allowPrivateNetworks ? { timeout: timeoutMs } : { timeout: timeoutMs, lookup: guardedLookup },
    });
    agents.set(key, agent);
  }
  return agent;
}

export async function closeWireAgents(): Promise<void> {
  const all = [...agents.values()];
  agents.clear();
  await Promise.allSettled(all.map((a) => a.close()));
}

// Error codes only (ECONNREFUSED, CERT_HAS_EXPIRED...): never a message that could echo the URL.
// Duck-typed, as errors raised inside Node's own modules may come from another realm.
function describeSendError(err: unknown): AttemptFailure {
  for (
    let e = err as { code?: unknown; cause?: unknown; name?: unknown } | undefined;
    e && typeof e === 'object';
    e = e.cause as typeof e
  ) {
    if (e instanceof AddressRefusedError) return { kind: 'address_refused', range: e.range };
    if (e.code === 'UND_ERR_CONNECT_TIMEOUT') return { kind: 'timeout' };
    if (typeof e.code === 'string') return { kind: 'connection_error', code: e.code };
  }
  const name = (err as { name?: unknown } | null)?.name;
  return { kind: 'connection_error', code: typeof name === 'string' ? name : 'unknown' };
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

// Keeps the first `limit` characters of the answer and drops the rest unread.
async function readAtMost(body: AsyncIterable<Buffer> & { dump(): Promise<void> }, limit: number): Promise<string> {
  if (limit === 0) {
    await body.dump();
    return '';
  }
  const decoder = new StringDecoder('utf8');
  let text = '';
  for await (const chunk of body) {
    text += decoder.write(chunk);
    if (text.length >= limit) return text.slice(0, limit);
  }
  return (text + decoder.end()).slice(0, limit);
}
