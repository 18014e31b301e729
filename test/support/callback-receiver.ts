import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedCallback {
  path: string; // without the query
  url: string; // path and query, as requested (a postback's macros are in the query)
  method: string;
  at: number; // epoch ms when the request was complete
  headers: IncomingHttpHeaders;
  raw: string;
  body: Record<string, unknown>;
  signatureValid: boolean;
}

export type Responder = (req: IncomingMessage, res: ServerResponse, nth: number) => void;

// A partner's callback endpoint on loopback, as a partner would write it: it checks X-Signature
// itself with node:crypto (HMAC-SHA256 of the raw body, constant-time, prefix optional) and keeps
// everything it got. Each path is one partner, with its own secret and answer. A postback (a GET)
// is kept the same way, its query in `url`.
export class CallbackReceiver {
  readonly received: ReceivedCallback[] = [];
  private readonly routes = new Map<string, { secret: string; respond: Responder }>();
  private server: Server | null = null;
  private base = '';

  // On `port` when given (a receiver that comes back where it was), else on a free one.
  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.handle(req, res, Buffer.concat(chunks).toString('utf8')));
    });
    await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  url(path: string): string {
    return `${this.base}${path}`;
  }

  route(path: string, secret: string, respond: Responder = (_req, res) => res.end('ok')): void {
    this.routes.set(path, { secret, respond });
  }

  respond(path: string, respond: Responder): void {
    const route = this.routes.get(path);
    if (!route) throw new Error(`no route ${path}`);
    route.respond = respond;
  }

  at(path: string): ReceivedCallback[] {
    return this.received.filter((r) => r.path === path);
  }

  async waitFor(path: string, count: number, timeoutMs = 20000): Promise<ReceivedCallback[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.at(path).length < count) {
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${count} callbacks on ${path}; got ${this.at(path).length}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return this.at(path);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private handle(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const url = req.url ?? '/';
    const path = url.split('?', 1)[0] as string;
    const route = this.routes.get(path);
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      // kept as raw only
    }
    const signatureValid = route ? verify(route.secret, raw, req.headers['x-signature']) : false;
    this.received.push({
      path,
      url,
      method: req.method ?? 'GET',
      at: Date.now(),
      headers: req.headers,
      raw,
      body,
      signatureValid,
    });
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    route.respond(req, res, this.at(path).length);
  }
}

function verify(secret: string, raw: string, header: string | string[] | undefined): boolean {
  if (typeof header !== 'string') return false;
  const given = Buffer.from(header.replace(/^sha256=/, ''), 'hex');
  const expected = createHmac('sha256', secret).update(raw, 'utf8').digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

// Answers every request with this status.
export const status =
  (code: number, body = ''): Responder =>
  (_req, res) =>
    res.writeHead(code).end(body);
// Fails the first `n` requests with 500, then succeeds.
export const failFirst =
  (n: number): Responder =>
  (_req, res, nth) =>
    res.writeHead(nth <= n ? 500 : 200).end(nth <= n ? 'not yet' : 'ok');
// Never answers the first `n` requests, then succeeds.
export const hangFirst =
  (n: number): Responder =>
  (_req, res, nth) => {
    if (nth > n) res.end('ok');
  };

// What a test send reports when the receiver answered 200 "ok" (`extra`: what that kind adds, e.g. the URL).
export const answeredOk = (extra: Record<string, unknown> = {}) => ({
  delivered: true,
  http_status: 200,
  duration_ms: expect.any(Number),
  error: null,
  response_body: 'ok',
  ...extra,
});
