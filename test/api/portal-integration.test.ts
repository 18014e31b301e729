import type { CallbackReceiver } from '../support/callback-receiver';
import type { ManagerClient } from '../support/manager-client';
import { sendLead, type FedPartner } from '../support/portal-data';
import type { PortalPerson } from '../support/portal-client';
import { ADMIN_NAME, auditEntries, startPortalAdminStack } from '../support/portal-admin-stack';
import type { TestApp } from '../support/test-app';

// A partner's integration settings in the portal over the whole pipeline: the admin rotates the HMAC
// secret with a grace period and changes the callback URL; each change audited in the manager's log
// with the person's name.
let app: TestApp;
let manager: ManagerClient;
let receiver: CallbackReceiver;
let acme: FedPartner;
let admin: PortalPerson;

const auditOf = (action: string) => auditEntries(manager, acme.id, action);

beforeAll(async () => {
  ({ app, manager, receiver, acme, admin } = await startPortalAdminStack());
}, 120_000);

afterAll(async () => {
  await receiver?.stop();
  await app?.destroy();
});

describe('integration', () => {
  it('rotates the hmac secret with a grace period: the old one still verifies, the new one is shown once; audited', async () => {
    const rotated = await admin.client.post<{ hmac_secret: string; grace_until: string }>(
      '/portal/api/integration/rotate',
      { which: ['hmac_secret'], grace_seconds: 300 },
    );
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    expect(Date.parse(rotated.body.grace_until) - Date.now()).toBeGreaterThan(290_000);
    expect((await sendLead(app.url, acme, { external_id: 'old-secret' })).status).toBe('accepted');
    expect(
      (await sendLead(app.url, { ...acme, hmac_secret: rotated.body.hmac_secret }, { external_id: 'new-secret' }))
        .status,
    ).toBe('accepted');
    const shown = await admin.client.get('/portal/api/integration');
    expect(shown.body).toMatchObject({ affiliate_id: acme.id, previous_secrets_until: rotated.body.grace_until });
    expect(JSON.stringify(shown.body)).not.toContain(rotated.body.hmac_secret);
    expect((await auditOf('partner.rotate_key'))[0]).toMatchObject({
      actor: admin.id,
      actor_name: ADMIN_NAME,
      details: { rotated: ['hmac_secret'], grace_seconds: 300 },
    });
  });

  it('changes the callback URL (https only), audited with the hosts', async () => {
    const before = new URL(receiver.url('/')).host;
    const http = await admin.client.send('PATCH', '/portal/api/integration', {
      callback_url: 'http://hooks.acme.example/cb',
    });
    expect(http.status).toBe(422);
    expect((await auditOf('partner.update'))[0]).toMatchObject({
      actor_name: ADMIN_NAME,
      details: { refused: 'invalid_request', http_status: 422 },
    });
    const changed = await admin.client.send('PATCH', '/portal/api/integration', {
      callback_url: 'https://hooks.acme.example/cb',
      callback_events: ['lead.ftd'],
    });
    expect(changed.body).toMatchObject({
      callback_url: 'https://hooks.acme.example/cb',
      callback_events: ['lead.ftd'],
    });
    expect((await auditOf('partner.update'))[0]).toMatchObject({
      actor: admin.id,
      actor_name: ADMIN_NAME,
      details: {
        fields: ['callback_url', 'callback_events'],
        callback_host: { from: before, to: 'hooks.acme.example' },
      },
    });
    expect((await manager.get(`/api/affiliates/${acme.id}`)).body).toMatchObject({
      callback_url: 'https://hooks.acme.example/cb',
    });
  });
});
