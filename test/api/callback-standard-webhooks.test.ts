import { Webhook } from 'standardwebhooks';
import { CallbackReceiver, type ReceivedCallback } from '../support/callback-receiver';
import { leadEvent, publishLeadEvents } from '../support/lead-events';
import { ManagerClient } from '../support/manager-client';
import { PartnerClient } from '../support/partner-client';
import { startTestApp, type TestApp } from '../support/test-app';

// Standard Webhooks signing and rotation with a grace, checked by the
// reference receiver library (npm standardwebhooks) against callbacks from the real dispatcher, and
// by the real partner API for the old api_key and hmac_secret.
const GRACE_S = 3;
let app: TestApp;
let manager: ManagerClient;
let receiver: CallbackReceiver;

interface Created {
  id: string;
  api_key: string;
  hmac_secret: string;
  callback_secret: string;
}
type AuditPage = { items: { details: Record<string, unknown> }[] };

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'ingress,dispatcher' });
  manager = new ManagerClient(app.url);
  receiver = await new CallbackReceiver().start();
});

afterAll(async () => {
  await receiver?.stop();
  await app?.destroy();
});

async function partner(path: string, settings: Record<string, unknown> = {}): Promise<Created> {
  const res = await manager.post<Created>('/api/affiliates', {
    name: path,
    callback_url: receiver.url(path),
    ...settings,
  });
  expect(res.status).toBe(201);
  receiver.route(path, res.body.callback_secret);
  return res.body;
}

// One callback from the dispatcher: a lead event of this partner.
async function dispatched(path: string, partnerId: string): Promise<ReceivedCallback> {
  const before = receiver.at(path).length;
  await publishLeadEvents(app.runtime, [leadEvent(partnerId)]);
  return (await receiver.waitFor(path, before + 1))[before]!;
}

const verifies = (secret: string, got: ReceivedCallback): boolean => {
  try {
    new Webhook(secret).verify(got.raw, got.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
};
const whsecOf = (secret: string) => `whsec_${Buffer.from(secret, 'utf8').toString('base64')}`;

describe('signature_scheme standard-webhooks', () => {
  it('issues a whsec_ secret and signs webhook-id.timestamp.body; the reference verifier accepts it', async () => {
    const p = await partner('/swh', { signature_scheme: 'standard-webhooks' });
    expect(p.callback_secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect((await manager.get(`/api/affiliates/${p.id}`)).body).toMatchObject({
      signature_scheme: 'standard-webhooks',
    });
    const got = await dispatched('/swh', p.id);
    expect(got.headers['x-signature']).toBeUndefined();
    expect(got.headers['webhook-id']).toBe(got.headers['x-event-id']);
    expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(verifies(p.callback_secret, got)).toBe(true);
    expect(verifies(whsecOf('someone else'), got)).toBe(false);
    expect(verifies(p.callback_secret, { ...got, raw: got.raw.replace('"lead.accepted"', '"lead.rejected"') })).toBe(
      false,
    );
  });

  it('keeps the spec signature by default', async () => {
    const p = await partner('/spec');
    const got = await dispatched('/spec', p.id);
    expect(got.signatureValid).toBe(true);
    expect(got.headers['webhook-signature']).toBeUndefined();
  });

  it('switches an existing partner: its callback secret keeps working, as whsec_ + base64 of it', async () => {
    const p = await partner('/switched');
    expect((await manager.patch(`/api/affiliates/${p.id}`, { signature_scheme: 'standard-webhooks' })).status).toBe(
      200,
    );
    const got = await dispatched('/switched', p.id);
    expect(verifies(whsecOf(p.callback_secret), got)).toBe(true);
  });

  it('refuses an unknown scheme and changes nothing', async () => {
    const p = await partner('/refused');
    const res = await manager.patch(`/api/affiliates/${p.id}`, { signature_scheme: 'md5' });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ error: 'invalid_request' });
    expect((await manager.get(`/api/affiliates/${p.id}`)).body.signature_scheme).toBeUndefined();
    const audit = await manager.get<AuditPage>(`/api/audit-log?affiliate_id=${p.id}&action=partner.update`);
    expect(audit.body.items.map((i) => i.details)).toEqual([{ refused: 'invalid_request', http_status: 422 }]);
  });
});

describe('rotate-key with grace_seconds', () => {
  it('keeps the old api_key, hmac_secret and callback secret working during the grace, then only the new ones', async () => {
    const old = await partner('/rotated', { signature_scheme: 'standard-webhooks' });
    const res = await manager.post<Created & { grace_until: string; key_rotated_at: string }>(
      `/api/affiliates/${old.id}/rotate-key`,
      {
        secrets: ['hmac_secret', 'callback_secret'],
        grace_seconds: GRACE_S,
      },
    );
    expect(res.status).toBe(200);
    const fresh = res.body;
    expect(Date.parse(fresh.grace_until) - Date.parse(fresh.key_rotated_at)).toBe(GRACE_S * 1000);
    expect(fresh.callback_secret).toMatch(/^whsec_/);
    expect((await manager.get(`/api/affiliates/${old.id}`)).body.previous_secrets_until).toBe(fresh.grace_until);

    // During the grace: both keys authenticate (404: past authentication, unknown lead), both secrets sign.
    const asOld = new PartnerClient(app.url, old);
    const asNew = new PartnerClient(app.url, fresh);
    const mixed = new PartnerClient(app.url, { api_key: fresh.api_key, hmac_secret: old.hmac_secret });
    expect((await asOld.leadStatus('nope')).status).toBe(404);
    expect((await asNew.leadStatus('nope')).status).toBe(404);
    expect((await mixed.leadStatus('nope')).status).toBe(404);
    const during = await dispatched('/rotated', old.id);
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifies(old.callback_secret, during)).toBe(true);
    expect(verifies(fresh.callback_secret, during)).toBe(true);

    await new Promise((r) => setTimeout(r, Date.parse(fresh.grace_until) - Date.now() + 200));
    expect((await asOld.leadStatus('nope')).body).toMatchObject({ error: 'invalid_api_key' });
    expect((await mixed.leadStatus('nope')).body).toMatchObject({ error: 'invalid_signature' });
    expect((await asNew.leadStatus('nope')).status).toBe(404);
    const after = await dispatched('/rotated', old.id);
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifies(old.callback_secret, after)).toBe(false);
    expect(verifies(fresh.callback_secret, after)).toBe(true);

    const audit = await manager.get<AuditPage>(`/api/audit-log?affiliate_id=${old.id}&action=partner.rotate_key`);
    expect(audit.body.items[0]?.details).toEqual({
      rotated: ['api_key', 'hmac_secret', 'callback_secret'],
      grace_seconds: GRACE_S,
    });
  });

  it('without grace_seconds the old key fails at once, as before', async () => {
    const old = await partner('/no-grace');
    const res = await manager.post<{ grace_until: null }>(`/api/affiliates/${old.id}/rotate-key`);
    expect(res.body.grace_until).toBeNull();
    expect((await new PartnerClient(app.url, old).leadStatus('nope')).body).toMatchObject({ error: 'invalid_api_key' });
  });

  it('refuses a grace that is negative, too long or not a number, and rotates nothing', async () => {
    const old = await partner('/bad-grace');
    for (const grace_seconds of [-1, 604801, 'soon', 1.5]) {
      const res = await manager.post(`/api/affiliates/${old.id}/rotate-key`, { grace_seconds });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ error: 'invalid_request' });
    }
    expect((await new PartnerClient(app.url, old).leadStatus('nope')).status).toBe(404);
    const audit = await manager.get<AuditPage>(`/api/audit-log?affiliate_id=${old.id}&action=partner.rotate_key`);
    expect(audit.body.items.map((i) => i.details)).toEqual(
      Array(4).fill({ refused: 'invalid_request', http_status: 422 }),
    );
  });
});
