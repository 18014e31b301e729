import { CallbackReceiver, status } from '../support/callback-receiver';
import { closeWireAgents, sendPostback, type SendPostbackOptions } from '../../src/dispatcher/delivery-wire';
import { sampleLeadEvent } from '../../src/shared/postbacks/sample-event';

// One postback against a real receiver on loopback: the SSRF guard and https rule callbacks have,
// no redirects followed, and the URL kept only with the token masked.
let receiver: CallbackReceiver;

beforeAll(async () => {
  receiver = await new CallbackReceiver().start();
  receiver.route('/pb', 'unused');
  receiver.route('/moved', 'unused', (_req, res) => res.writeHead(302, { location: receiver.url('/pb') }).end());
});
afterAll(async () => {
  await receiver.stop();
  await closeWireAgents();
});

const options = (template: string, over: Partial<SendPostbackOptions> = {}): SendPostbackOptions => ({
  template,
  statusMapping: {},
  token: 'secret-token',
  sign: false,
  event: sampleLeadEvent('pa-1', 'lead.accepted', new Date(), 'x'),
  serviceName: 'Acme',
  timeoutMs: 2000,
  allowPrivateNetworks: true,
  allowHttp: true,
  responseBodyLimit: 100,
  ...over,
});

describe('sendPostback', () => {
  it('sends a GET and reports the URL with the token masked', async () => {
    const before = receiver.at('/pb').length;
    const result = await sendPostback(options(`${receiver.url('/pb')}?t={token}&e={event}`));
    expect(result).toMatchObject({
      httpStatus: 200,
      failure: null,
      url: `${receiver.url('/pb')}?t=***&e=lead.accepted`,
    });
    const got = receiver.at('/pb')[before]!;
    expect(got.method).toBe('GET');
    expect(got.url).toBe('/pb?t=secret-token&e=lead.accepted');
  });

  it('refuses a loopback address when private networks are not allowed, by literal and by name, sending nothing', async () => {
    const before = receiver.received.length;
    const literal = await sendPostback(options(`${receiver.url('/pb')}?e={event}`, { allowPrivateNetworks: false }));
    expect(literal.failure).toEqual({ kind: 'address_refused', range: 'loopback' });
    const byName = await sendPostback(
      options(`${receiver.url('/pb').replace('127.0.0.1', 'localhost')}?e={event}`, { allowPrivateNetworks: false }),
    );
    expect(byName.failure).toEqual({ kind: 'address_refused', range: 'loopback' });
    expect(receiver.received.length).toBe(before);
  });

  it('refuses http where https is required', async () => {
    const result = await sendPostback(options(`${receiver.url('/pb')}?e={event}`, { allowHttp: false }));
    expect(result.failure).toEqual({ kind: 'https_required' });
  });

  it('does not follow a redirect: the 3xx is the answer', async () => {
    const before = receiver.at('/pb').length;
    const result = await sendPostback(options(receiver.url('/moved')));
    expect(result.httpStatus).toBe(302);
    expect(receiver.at('/pb').length).toBe(before);
  });

  it('never names the URL (or its token) in an error', async () => {
    receiver.route('/down', 'unused', status(500));
    const result = await sendPostback(options('http://127.0.0.1:1/pb?t={token}'));
    expect(result.error).toMatch(/^connection_error:/);
    expect(result.error).not.toContain('secret-token');
  });
});
