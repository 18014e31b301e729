import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LeadIntakeClient, type RetryInfo } from '../src/index.js';

// Against a stand-in that answers each reporting call 429 (Retry-After: 1) once, then a page or a report:
// the call waits as asked, signs the empty body, sends the filters and cursor in the query, and a page's
// next_cursor leads the iterator on until it is null.
const seen: { url: string; signature: string }[] = [];
const pages: Record<string, object> = {
  '': { items: [{ external_id: 'a-2' }], next_cursor: '2026-11-22T10:00:00.000Z|le-2' },
  '2026-11-22T10:00:00.000Z|le-2': { items: [{ external_id: 'a-1' }], next_cursor: null },
};
let server: Server;
let limited = new Set<string>();

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: String(req.url), signature: String(req.headers['x-signature']) });
    const url = new URL(String(req.url), 'http://stand-in');
    if (!limited.has(String(req.url))) {
      limited.add(String(req.url));
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
      return res.end('{"error":"rate_limit_exceeded","message":"Try again in 1 seconds"}');
    }
    const body =
      url.pathname === '/api/v1/leads'
        ? pages[url.searchParams.get('cursor') ?? '']
        : { from: url.searchParams.get('from'), to: url.searchParams.get('to'), totals: {}, by_day: [] };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  seen.length = 0;
  limited = new Set();
});

function client(retries: RetryInfo[]): LeadIntakeClient {
  const { port } = server.address() as AddressInfo;
  return new LeadIntakeClient({
    baseUrl: `http://127.0.0.1:${port}/api`,
    apiKey: 'lk_test',
    hmacSecret: 'hs_test',
    onRetry: (r) => retries.push(r),
  });
}

it('lists leads page by page, each page waiting out its 429 as Retry-After asks', async () => {
  const retries: RetryInfo[] = [];
  const started = Date.now();
  const ids: string[] = [];
  for await (const lead of client(retries).allLeads({ sub_id: 'sub 1', from: new Date(0) }, { limit: 1 }))
    ids.push(lead.external_id);
  expect(ids).toEqual(['a-2', 'a-1']);
  expect(retries.map((r) => [r.status, r.retryAfterS])).toEqual([
    [429, 1],
    [429, 1],
  ]);
  expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
  const empty = `sha256=${createHmac('sha256', 'hs_test').update('').digest('hex')}`;
  expect(new Set(seen.map((s) => s.signature))).toEqual(new Set([empty]));
  expect(seen[0]!.url).toBe('/api/v1/leads?sub_id=sub+1&from=1970-01-01T00%3A00%3A00.000Z&limit=1');
  expect(seen[3]!.url).toBe(
    '/api/v1/leads?sub_id=sub+1&from=1970-01-01T00%3A00%3A00.000Z&limit=1&cursor=2026-11-22T10%3A00%3A00.000Z%7Cle-2',
  );
});

it('reads a report for a range of days, after a 429', async () => {
  const retries: RetryInfo[] = [];
  const report = await client(retries).reports('2026-11-20', '2026-11-22');
  expect(report).toMatchObject({ from: '2026-11-20', to: '2026-11-22' });
  expect(retries).toHaveLength(1);
  const asked = '/api/v1/reports?from=2026-11-20&to=2026-11-22';
  expect(seen.map((s) => s.url)).toEqual([asked, asked]);
});
