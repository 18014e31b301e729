import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { verifyCallback } from '../src/index.js';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  verdict: string; // 'ok' or the error code verifyCallback threw
}

// A partner's callback endpoint: verifies each callback with the secrets of its path before
// anything else, answers 204 or 401, and keeps what came for the tests to look at.
export class CallbackServer {
  readonly received: Received[] = [];
  private server: Server | undefined;

  constructor(private readonly secrets: Record<string, string[]>) {}

  start(port: number): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        const path = req.url ?? '';
        let verdict = 'ok';
        try {
          verifyCallback(req.headers, raw, this.secrets[path] ?? []);
        } catch (e) {
          verdict = (e as { code?: string }).code ?? 'error';
        }
        this.received.push({ path, headers: req.headers, raw, verdict });
        res.writeHead(verdict === 'ok' ? 204 : 401).end();
      });
    });
    return new Promise((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
  }

  async waitFor(
    path: string,
    match: (body: Record<string, unknown>) => boolean,
    timeoutMs = 30_000,
  ): Promise<Received> {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      const hit = this.received.find((r) => r.path === path && match(JSON.parse(r.raw.toString('utf8'))));
      if (hit) return hit;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no callback at ${path} within ${timeoutMs} ms`);
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
