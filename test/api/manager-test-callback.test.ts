import { answeredOk, CallbackReceiver, status } from '../support/callback-receiver';
import { ManagerClient } from '../support/manager-client';
import { startTestApp, type TestApp } from '../support/test-app';

// POST /api/affiliates/{id}/test-callback (spec 4.4) against a real receiver on loopback that
// checks the signature itself.
let app: TestApp;
let manager: ManagerClient;
let receiver: CallbackReceiver;

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'ingress,dispatcher', SERVICE_NAME: 'Acme' });
  manager = new ManagerClient(app.url);
  receiver = await new CallbackReceiver().start();
});

afterAll(async () => {
  await receiver?.stop();
  await app?.destroy();
});

async function partnerAt(
  path: string,
  extra: Record<string, unknown> = {},
): Promise<{ id: string; callback_secret: string }> {
  const res = await manager.post<{ id: string; callback_secret: string }>('/api/affiliates', {
    name: path,
    callback_url: receiver.url(path),
    ...extra,
  });
  receiver.route(path, res.body.callback_secret);
  return res.body;
}

describe('test callback', () => {
  it('sends a signed synthetic lead.accepted and reports the attempt', async () => {
    const partner = await partnerAt('/ok', { status_mapping: { new: 'FRESH' } });
    const res = await manager.post(`/api/affiliates/${partner.id}/test-callback`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(answeredOk());
    const [got] = await receiver.waitFor('/ok', 1);
    expect(got?.signatureValid).toBe(true);
    expect(got?.headers).toMatchObject({
      'x-event': 'lead.accepted',
      'user-agent': 'Acme-Webhook/1.0',
      'content-type': 'application/json',
    });
    expect(Math.abs(Number(got?.headers['x-timestamp']) - Date.now() / 1000)).toBeLessThan(10);
    expect(got?.body).toEqual({
      event: 'lead.accepted',
      external_lead_id: expect.stringMatching(/^test-/),
      internal_id: 'le-0',
      status: 'FRESH',
      our_status: 'new',
      is_depositor: false,
      timestamp: expect.any(String),
    });
    // An event id of its own, named after the test's external id, so a partner dropping repeats sees every test.
    expect(got?.headers['x-event-id']).toBe(`le-0:${String(got?.body.external_lead_id)}`);
    expect(got?.headers['x-event-id']).toMatch(/^le-0:test-[0-9a-f]{12}$/);
  });

  it('signs with the rotated callback secret once it is rotated', async () => {
    const partner = await partnerAt('/rotated');
    const rotated = await manager.post<{ callback_secret: string }>(`/api/affiliates/${partner.id}/rotate-key`, {
      secrets: ['callback_secret'],
    });
    receiver.route('/rotated', rotated.body.callback_secret);
    await manager.post(`/api/affiliates/${partner.id}/test-callback`);
    const [got] = await receiver.waitFor('/rotated', 1);
    expect(got?.signatureValid).toBe(true);
  });

  it('reports a refusing receiver: its status and body, not delivered', async () => {
    const partner = await partnerAt('/broken');
    receiver.respond('/broken', status(503, 'down for maintenance'));
    const res = await manager.post(`/api/affiliates/${partner.id}/test-callback`);
    expect(res.body).toMatchObject({
      delivered: false,
      http_status: 503,
      error: null,
      response_body: 'down for maintenance',
    });
  });

  it('reports an unreachable URL as a connection error', async () => {
    const res = await manager.post<{ id: string }>('/api/affiliates', {
      name: 'gone',
      callback_url: 'http://127.0.0.1:1/cb',
    });
    const sent = await manager.post(`/api/affiliates/${res.body.id}/test-callback`);
    expect(sent.body).toMatchObject({
      delivered: false,
      http_status: null,
      error: expect.stringMatching(/^connection_error/),
    });
  });

  it('answers 409 conflict for a partner without a callback URL, 404 for an unknown one', async () => {
    const res = await manager.post<{ id: string }>('/api/affiliates', { name: 'silent' });
    const sent = await manager.post(`/api/affiliates/${res.body.id}/test-callback`);
    expect(sent.status).toBe(409);
    expect(sent.body.error).toBe('conflict');
    expect((await manager.post('/api/affiliates/pa-0000000000000000/test-callback')).status).toBe(404);
  });

  it('is audited with its outcome', async () => {
    const partner = await partnerAt('/audited');
    await manager.post(`/api/affiliates/${partner.id}/test-callback`);
    const entry = await app.runtime.mongo.collections.audit.findOne({
      partner_id: partner.id,
      action: 'partner.test_callback',
    });
    expect(entry?.details).toEqual({ delivered: true, http_status: 200, error: null });
  });
});
