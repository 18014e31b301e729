import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeCallbackAgents, sendCallback, type SendCallbackOptions } from '../../src/dispatcher/callback-wire';

// The lease is checked as the request's bytes are about to be written, after everything an attempt
// waits for (its partner read, a connection from undici's pool): a process frozen anywhere before
// that point, and thawed past its lease, sends nothing.
let server: Server;
let base: string;
let received = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await closeCallbackAgents();
});
beforeEach(() => {
  received = 0;
});

const opts = (mayGo: () => boolean): SendCallbackOptions => ({
  url: `${base}/cb`,
  signing: { scheme: 'spec', secrets: ['cs_test_secret'] },
  eventId: 'le-42:0',
  serviceName: 'LeadIntake',
  payload: {
    event: 'lead.accepted',
    external_lead_id: 'ext-1',
    internal_id: 'le-42',
    status: 'N',
    our_status: 'new',
    is_depositor: false,
    timestamp: '2026-11-22T02:00:00.000Z',
  },
  timeoutMs: 2000,
  allowPrivateNetworks: true,
  allowHttp: true,
  responseBodyLimit: 2048,
  mayGo,
});

const settle = () => new Promise((r) => setTimeout(r, 200));

describe('a callback request under a lease', () => {
  it('goes while the lease holds, checked once, as it goes on the wire', async () => {
    let checks = 0;
    const result = await sendCallback(opts(() => ++checks > 0));
    expect(result).toMatchObject({ httpStatus: 200, error: null });
    expect(received).toBe(1);
    expect(checks).toBe(1);
  });

  it('is withheld, never sent, when the lease ran out while it waited for its connection', async () => {
    let held = true;
    const sending = sendCallback(opts(() => held));
    held = false; // frozen after the attempt started, thawed past the lease
    const result = await sending;
    await settle();
    expect(received).toBe(0);
    expect(result).toMatchObject({ failure: { kind: 'withheld' }, httpStatus: null, error: 'withheld' });
  });

  it('is withheld on a kept-alive connection as well', async () => {
    await sendCallback(opts(() => true)); // a pooled connection to the receiver now exists
    received = 0;
    let held = true;
    const sending = sendCallback(opts(() => held));
    held = false;
    expect(await sending).toMatchObject({ failure: { kind: 'withheld' } });
    await settle();
    expect(received).toBe(0);
  });
});
