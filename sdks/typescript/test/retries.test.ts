import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LeadIntakeClient } from '../src/index.js';

// Against a stand-in that answers 503 twice: every retry carries the same Idempotency-Key, the same
// bytes and their signature, and the answer after the retries is the one returned.
interface Seen {
  key: string;
  signature: string;
  body: string;
}

let server: Server;
const seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.push({ key: String(req.headers['idempotency-key']), signature: String(req.headers['x-signature']), body });
      const pending = seen.length < 3;
      res.writeHead(pending ? 503 : 200, { 'content-type': 'application/json', 'retry-after': '0' });
      res.end(
        pending
          ? '{"error":"decision_pending","message":"Not decided in time"}'
          : '{"id":"le-7","status":"accepted","reason":null}',
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

it('keeps one Idempotency-Key and signs the same bytes on every retry', async () => {
  const { port } = server.address() as AddressInfo;
  const client = new LeadIntakeClient({
    baseUrl: `http://127.0.0.1:${port}/api`,
    apiKey: 'lk_test',
    hmacSecret: 'hs_test',
    retry: { baseDelayMs: 10 },
  });
  const result = await client.sendLead({ phone: '+447911123456', first_name: 'Zoë' });
  expect(result).toMatchObject({ outcome: 'accepted', leadId: 'le-7', attempts: 3, replay: false });
  expect(new Set(seen.map((s) => s.key))).toEqual(new Set([result.idempotencyKey]));
  expect(new Set(seen.map((s) => s.body)).size).toBe(1);
  for (const s of seen)
    expect(s.signature).toBe(`sha256=${createHmac('sha256', 'hs_test').update(s.body, 'utf8').digest('hex')}`);
});

it('retries a request that gets no answer until the deadline, then throws network_error', async () => {
  const retried: (number | null)[] = [];
  const closed = new LeadIntakeClient({
    baseUrl: 'http://127.0.0.1:9/api', // the discard port: nothing listens there
    apiKey: 'lk_test',
    hmacSecret: 'hs_test',
    retry: { deadlineMs: 1500, baseDelayMs: 100 },
    onRetry: (r) => retried.push(r.status),
  });
  const started = Date.now();
  await expect(closed.sendLead({ phone: '+447911123456' })).rejects.toMatchObject({ code: 'network_error' });
  expect(retried.length).toBeGreaterThanOrEqual(2);
  expect(retried.every((s) => s === null)).toBe(true);
  // At the deadline, not retrying past it: a loaded machine's timers may fire a little late.
  expect(Date.now() - started).toBeLessThan(1500 + 500);
});
