import { CallbackReceiver } from '../support/callback-receiver';
import { servicesOf } from '../support/manager-services';
import { PartnerClient } from '../support/partner-client';
import { startTestApp, type TestApp } from '../support/test-app';

// Which intake results a partner hears of by callback (spec 3.2 and 6.1): an acceptance by
// lead.accepted and a rejection by lead.rejected; a duplicate and a validation error only in the
// intake's answer (409, 422), never by a callback.
let app: TestApp;
let receiver: CallbackReceiver;
let partner: PartnerClient;

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'all', BLOCKED_COUNTRIES: 'KP' });
  receiver = await new CallbackReceiver().start();
  const { secrets } = await servicesOf(app.runtime).partners.create({
    name: 'Intake callbacks',
    callback_url: receiver.url('/cb'),
  });
  receiver.route('/cb', secrets.callback_secret);
  partner = new PartnerClient(app.url, secrets);
}, 120_000);

afterAll(async () => {
  await receiver?.stop();
  await app?.destroy();
});

it('calls back an acceptance and a rejection, never a duplicate or a validation error', async () => {
  const sent = [
    [{ external_id: 'first', phone: '+447911130001' }, 200],
    [{ external_id: 'again', phone: '+447911130001' }, 409],
    [{ external_id: 'no-phone' }, 422],
    [{ external_id: 'blocked', phone: '+447911130002', country: 'KP' }, 422],
    [{ external_id: 'last', phone: '+447911130003' }, 200],
  ] as const;
  for (const [lead, status] of sent) expect((await partner.submitLead(lead)).status).toBe(status);
  await receiver.waitFor('/cb', 3, 30_000);
  // Callbacks of one partner's leads may come in any order: give a stray one time to arrive.
  await new Promise((r) => setTimeout(r, 2000));
  const heard = receiver.at('/cb').map((r) => [r.body.external_lead_id, r.body.event]);
  expect(heard.sort()).toEqual([
    ['blocked', 'lead.rejected'],
    ['first', 'lead.accepted'],
    ['last', 'lead.accepted'],
  ]);
}, 90_000);
