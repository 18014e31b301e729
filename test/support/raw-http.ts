import { Agent, request, type IncomingHttpHeaders } from 'node:http';

export interface RawRequest {
  method: string;
  path: string; // sent as is (already percent-encoded)
  headers: [string, string][]; // in this order, with these exact names: duplicates and odd casing kept
  body: Buffer;
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

// Sends one request with full control of its header lines (fetch folds duplicates and normalises
// names). Host and Content-Length are added unless the caller gave them.
export function sendRaw(baseUrl: string, req: RawRequest, timeoutMs = 10_000): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const names = new Set(req.headers.map(([n]) => n.toLowerCase()));
  const lines: string[] = [];
  if (!names.has('host')) lines.push('Host', url.host);
  for (const [n, v] of req.headers) lines.push(n, v);
  if (!names.has('content-length') && (req.body.length > 0 || req.method !== 'GET'))
    lines.push('Content-Length', String(req.body.length));
  return new Promise((resolve, reject) => {
    const r = request(
      {
        host: url.hostname,
        port: url.port,
        method: req.method,
        path: req.path,
        agent,
        timeout: timeoutMs,
        // An array keeps each line as given (the same format as IncomingMessage.rawHeaders).
        headers: lines as unknown as Record<string, string>,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    r.on('timeout', () => r.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    r.on('error', reject);
    r.end(req.body);
  });
}

export function closeRawAgent(): void {
  agent.destroy();
}
