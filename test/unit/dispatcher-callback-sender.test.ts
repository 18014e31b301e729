import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeWireAgents, sendCallback, type SendCallbackOptions } from '../../src/dispatcher/delivery-wire';
import type { CallbackPayload } from '../../src/shared/schemas';
import { Webhook } from 'standardwebhooks';

// A receiver on loopback that records what it got and answers as the current test says.
interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  url: string;
}
let server: Server;
let base: string;
const received: Received[] = [];
let answer: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end('ok');

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), url: req.url ?? '' });
      answer(req, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await closeWireAgents();
});
beforeEach(() => {
  received.length = 0;
  answer = (_req, res) => res.end('ok');
});

const payload: CallbackPayload = {
  event: 'lead.status_changed',
  external_lead_id: 'ext-1',
  internal_id: 'le-42',
  status: 'C',
  our_status: 'contacted',
  is_depositor: false,
  timestamp: '2026-11-22T02:00:00.000Z',
  from_status: 'new',
};
const opts = (over: Partial<SendCallbackOptions> = {}): SendCallbackOptions => ({
  url: `${base}/cb`,
  signing: { scheme: 'spec', secrets: ['cs_test_secret'] },
  eventId: 'le-42:3',
  serviceName: 'LeadIntake',
  payload,
  timeoutMs: 2000,
  allowPrivateNetworks: true,
  allowHttp: true,
  responseBodyLimit: 2048,
  ...over,
});

describe('sendCallback', () => {
  it('sends the exact body with a signature a receiver can verify independently', async () => {
    const result = await sendCallback(opts({ now: () => 1_790_000_000_123 }));
    expect(result).toMatchObject({ httpStatus: 200, error: null, responseBody: 'ok' });
    const [got] = received;
    expect(got?.body).toBe(JSON.stringify(payload));
    expect(got?.headers['x-signature']).toBe(
      `sha256=${createHmac('sha256', 'cs_test_secret')
        .update(got?.body ?? '')
        .digest('hex')}`,
    );
    expect(got?.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'LeadIntake-Webhook/1.0',
      'x-event': 'lead.status_changed',
      'x-timestamp': '1790000000',
      'x-event-id': 'le-42:3',
    });
  });

  it('reports the wait a 429 or 503 asks for in Retry-After, in seconds or as an HTTP date; no other answer', async () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    answer = (_req, res) => res.writeHead(429, { 'retry-after': '120' }).end();
    expect((await sendCallback(opts({ now: () => now }))).retryAfterMs).toBe(120_000);
    answer = (_req, res) => res.writeHead(503, { 'retry-after': 'Mon, 23 Nov 2026 12:10:00 GMT' }).end();
    expect((await sendCallback(opts({ now: () => now }))).retryAfterMs).toBe(600_000);
    answer = (_req, res) => res.writeHead(500, { 'retry-after': '120' }).end();
    expect((await sendCallback(opts({ now: () => now }))).retryAfterMs).toBeNull();
    answer = (_req, res) => res.writeHead(429, { 'retry-after': 'soon' }).end();
    expect((await sendCallback(opts({ now: () => now }))).retryAfterMs).toBeNull();
  });

  it('signs as Standard Webhooks when asked: the reference verifier accepts it, with either secret during a grace', async () => {
    const current = `whsec_${Buffer.from('current-key-material-0123456789ab').toString('base64')}`;
    const previous = `whsec_${Buffer.from('previous-key-material-0123456789').toString('base64')}`;
    await sendCallback(opts({ signing: { scheme: 'standard-webhooks', secrets: [current, previous] } }));
    const [got] = received;
    expect(got?.headers['x-signature']).toBeUndefined();
    expect(got?.headers['webhook-id']).toBe('le-42:3');
    expect(String(got?.headers['webhook-signature']).split(' ')).toHaveLength(2);
    const headers = got?.headers as Record<string, string>;
    for (const secret of [current, previous])
      expect(new Webhook(secret).verify(got?.body ?? '', headers)).toEqual(payload);
    const stranger = `whsec_${Buffer.from('someone-else-entirely-0123456789').toString('base64')}`;
    expect(() => new Webhook(stranger).verify(got?.body ?? '', headers)).toThrow();
  });

  it('does not follow redirects: the 3xx is the answer', async () => {
    answer = (req, res) => {
      if (req.url === '/cb') res.writeHead(302, { location: `${base}/elsewhere` }).end();
      else res.end('followed');
    };
    const result = await sendCallback(opts());
    expect(result.httpStatus).toBe(302);
    expect(received.map((r) => r.url)).toEqual(['/cb']);
  });

  it('keeps only the first responseBodyLimit characters of the answer', async () => {
    answer = (_req, res) => res.writeHead(500).end('é'.repeat(50_000));
    const result = await sendCallback(opts({ responseBodyLimit: 100 }));
    expect(result).toMatchObject({ httpStatus: 500, error: null });
    expect(result.responseBody).toBe('é'.repeat(100));
  });

  it('times out a receiver that does not answer', async () => {
    answer = () => undefined;
    const result = await sendCallback(opts({ timeoutMs: 300 }));
    expect(result).toMatchObject({ httpStatus: null, error: 'timeout' });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(result.durationMs).toBeLessThan(1500);
  });

  it('reports a refused connection', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    expect((await sendCallback(opts({ url: `http://127.0.0.1:${port}/cb` }))).error).toBe(
      'connection_error:ECONNREFUSED',
    );
  });

  it('requires https unless http is allowed', async () => {
    expect((await sendCallback(opts({ allowHttp: false }))).error).toBe('https_required');
    expect((await sendCallback(opts({ url: 'ftp://example.com/x' }))).error).toBe('invalid_url:ftp');
    expect((await sendCallback(opts({ url: 'not a url' }))).error).toBe('invalid_url');
    expect(received).toHaveLength(0);
  });

  it('refuses loopback and private destinations unless allowed, by literal or by name', async () => {
    const port = (server.address() as AddressInfo).port;
    expect((await sendCallback(opts({ allowPrivateNetworks: false }))).error).toBe('address_refused:loopback');
    expect((await sendCallback(opts({ allowPrivateNetworks: false, url: `http://[::1]:${port}/cb` }))).error).toBe(
      'address_refused:loopback',
    );
    expect((await sendCallback(opts({ allowPrivateNetworks: false, url: `http://localhost:${port}/cb` }))).error).toBe(
      'address_refused:loopback',
    );
    expect(
      (await sendCallback(opts({ allowPrivateNetworks: false, url: 'http://169.254.169.254/latest' }))).error,
    ).toBe('address_refused:linkLocal');
    expect(received).toHaveLength(0);
    expect((await sendCallback(opts({ url: `http://localhost:${port}/cb` }))).httpStatus).toBe(200);
  });

  it('refuses a payload carrying money, or breaking the schema, without sending it', async () => {
    const money = { ...payload, amount: '100.00' } as CallbackPayload;
    expect((await sendCallback(opts({ payload: money }))).error).toBe('payload_refused:money_field:amount');
    const extra = { ...payload, note: 'x' } as CallbackPayload;
    expect((await sendCallback(opts({ payload: extra }))).error).toMatch(/^payload_refused:schema:/);
    expect(received).toHaveLength(0);
  });
});

// The lease is asked as the request's bytes are about to be written, after everything an attempt
// waits for (its partner read, a connection from undici's pool): a process frozen anywhere before
// that point, and thawed past its lease, sends nothing.
describe('a callback request under a lease', () => {
  const settle = () => new Promise((r) => setTimeout(r, 200));

  it('goes while the lease holds, checked once, as it goes on the wire', async () => {
    let checks = 0;
    const result = await sendCallback(opts({ mayGo: () => ++checks > 0 }));
    expect(result).toMatchObject({ httpStatus: 200, error: null });
    expect(received).toHaveLength(1);
    expect(checks).toBe(1);
  });

  it('is withheld, never sent, when the lease ran out while it waited for its connection', async () => {
    await closeWireAgents(); // no pooled connection: this one waits for a new one
    let held = true;
    const sending = sendCallback(opts({ mayGo: () => held }));
    held = false; // frozen after the attempt started, thawed past the lease
    const result = await sending;
    await settle();
    expect(received).toHaveLength(0);
    expect(result).toMatchObject({ failure: { kind: 'withheld' }, httpStatus: null, error: 'withheld' });
  });

  it('is withheld on a kept-alive connection as well', async () => {
    await sendCallback(opts()); // a pooled connection to the receiver now exists
    received.length = 0;
    let held = true;
    const sending = sendCallback(opts({ mayGo: () => held }));
    held = false;
    expect(await sending).toMatchObject({ failure: { kind: 'withheld' } });
    await settle();
    expect(received).toHaveLength(0);
  });
});
