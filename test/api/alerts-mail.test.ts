import type { Alert } from '../../src/alerts/alert-kinds';
import { alertKey, mailIdOf } from '../../src/alerts/alert-mails';
import type { Clock } from '../../src/shared/clock';
import { startAlertsStack, type AlertsStack } from '../support/alerts-stack';
import { CallbackReceiver, failFirst, status } from '../support/callback-receiver';
import { groupCaughtUp } from '../support/group-caught-up';
import { mailbox, mailTo, waitForMail, type DeliveredMail } from '../support/mailpit';
import { ManagerClient } from '../support/manager-client';
import { enrolPortal, inviteFirstAdmin, type PortalPerson } from '../support/portal-client';
import { deliveriesSettled, receivingPartner, sendLead, type FedPartner } from '../support/portal-data';
import { enrol, expectStatus, invite, type SessionClient } from '../support/session-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

// Alerts end to end: the dispatcher's and the processor's real work (a failing endpoint, deliveries
// given up, caps filling, a rotation's grace) reaches the partner's people and its manager as mail
// in Mailpit, each as they chose, the dead deliveries as one digest, nothing twice across a restart.
// The worker's clock is the test's: a digest's period and a day end when the test says.
const HOUR = 3_600_000;
let app: TestApp;
let manager: ManagerClient;
let receiver: CallbackReceiver;
let offset = 0;
const clock: Clock = { now: () => new Date(Date.now() + offset) };
let alerts: AlertsStack;
let flaky: FedPartner;
let gone: FedPartner;
let capped: FedPartner;
let sandbox: FedPartner;
const admins: Record<string, PortalPerson> = {};
let affiliateManager: { email: string; client: SessionClient };

const subjects = async (to: string) => (await mailTo(to)).map((m) => m.Subject).sort();
// What the alerts queued so far: mail and webhook posts, each an outbox document under its fence id.
const outboxes = async () => {
  const { db } = app.runtime.mongo;
  return Promise.all(['mail_outbox', 'alert_webhook_outbox'].map((c) => db.collection(c).countDocuments()));
};
async function mailAbout(to: string, subject: string): Promise<DeliveredMail> {
  const found = await until(
    async () => (await mailTo(to)).find((m) => m.Subject === subject),
    15_000,
    `"${subject}" to ${to}`,
  );
  return found;
}

beforeAll(async () => {
  app = await startTestApp({
    ROLE: 'all',
    CALLBACK_RETRY_DELAYS_S: '1,1,1,1',
    ENDPOINT_CIRCUIT_FAILURES: '2',
    ENDPOINT_CIRCUIT_OPEN_S: '1',
    ENDPOINT_PAUSE_AFTER_S: '3',
    ENDPOINT_PAUSE_MIN_FAILURES: '3',
    ENDPOINT_HEALTH_REPORT_MS: '200',
  });
  manager = new ManagerClient(app.url);
  receiver = await new CallbackReceiver().start();
  flaky = await receivingPartner(manager, receiver, 'flaky', status(500, 'down'));
  gone = await receivingPartner(manager, receiver, 'gone', status(404, 'no such hook'));
  capped = await receivingPartner(manager, receiver, 'capped', status(200, 'ok'), {
    caps: { daily: 5, countries: { GB: { hourly: 5 } } },
  });
  sandbox = await receivingPartner(manager, receiver, 'sandbox', status(200, 'ok'), {
    mode: 'test',
    caps: { daily: 2 },
  });
  // The people set up side by side: each is a few requests, each password a slow hash.
  const email = mailbox('manager');
  await Promise.all([
    ...[flaky, gone, capped, sandbox].map(async (p) => {
      admins[p.name] = await enrolPortal(app.url, await inviteFirstAdmin(app.url, p.id, { email: mailbox(p.name) }));
    }),
    (async () => {
      const invited = await invite(app.url, { email, role: 'affiliate_manager', partner_ids: [flaky.id, capped.id] });
      affiliateManager = { email, client: (await enrol(app.url, invited)).client };
    })(),
  ]);
  alerts = await startAlertsStack(app, clock, 'first');
}, 120_000);

afterAll(async () => {
  await alerts?.stop();
  await receiver?.stop();
  await app?.destroy();
});

it('lets each person choose their alerts, the daily summary off until asked for', async () => {
  const mine = await expectStatus(admins.flaky!.client.get<{ kinds: string[] }>('/portal/api/me/alerts'), 200);
  expect(mine.body.kinds).not.toContain('daily_summary');
  expect(mine.body.kinds).toContain('circuit_opened');
  const kinds = mine.body.kinds.filter((k) => k !== 'endpoint_resumed');
  await expectStatus(affiliateManager.client.send('PUT', '/api/me/alerts', { kinds }), 200);
  expect((await affiliateManager.client.get<{ kinds: string[] }>('/api/me/alerts')).body.kinds).toEqual(kinds);
  const refused = await affiliateManager.client.send('PUT', '/api/me/alerts', { kinds: ['lead_details'] });
  expect(refused.status).toBe(422);
});

it("lets a partner's admin name a webhook for its alerts", async () => {
  const admin = admins.flaky!.client;
  expect((await admin.send('PUT', '/portal/api/alerts/webhook', { url: 'ftp://hooks.example/a' })).status).toBe(422);
  receiver.route('/flaky-alerts', flaky.callback_secret, failFirst(1));
  const url = receiver.url('/flaky-alerts');
  expect((await expectStatus(admin.send('PUT', '/portal/api/alerts/webhook', { url }), 200)).body).toEqual({ url });
  expect((await admin.get('/portal/api/alerts/webhook')).body).toEqual({ url });
});

it("tells a failing endpoint's people and manager: failing, paused, resumed, answering again", async () => {
  const lead = await sendLead(app.url, flaky, {});
  for (const n of [1, 2]) await sendLead(app.url, flaky, { external_id: `flaky-${n}` });
  const failing = 'flaky: your callback endpoint is failing';
  const paused = 'flaky: your callback endpoint is paused';
  for (const to of [admins.flaky!.email, affiliateManager.email]) {
    const mail = await mailAbout(to, failing);
    expect(mail.Text).not.toContain(lead.externalId);
    expect(mail.Text).not.toContain(lead.phone);
    await mailAbout(to, paused);
  }
  expect((await mailAbout(admins.flaky!.email, failing)).Text).toContain('https://leads.example/portal/#/deliveries');
  expect((await mailAbout(affiliateManager.email, failing)).Text).toContain(
    `https://leads.example/console/#/partners/${flaky.id}`,
  );
  receiver.respond(flaky.path, status(200, 'ok'));
  expect((await manager.post(`/api/affiliates/${flaky.id}/endpoint/resume`)).status).toBe(202);
  await mailAbout(admins.flaky!.email, 'flaky: your callback endpoint is resumed');
  await mailAbout(admins.flaky!.email, 'flaky: your callback endpoint answers again');
  // The manager chose not to hear of resumes.
  await mailAbout(affiliateManager.email, 'flaky: your callback endpoint answers again');
  expect(await subjects(affiliateManager.email)).not.toContain('flaky: your callback endpoint is resumed');
  // Nobody else's people heard of it.
  expect(await subjects(admins.gone!.email)).toEqual([]);
  // The webhook got each alert once, signed as the partner's callbacks are; the first post, refused, was retried.
  const posts = await receiver.waitFor('/flaky-alerts', 5);
  expect(posts.every((p) => p.signatureValid)).toBe(true);
  expect(posts[0]!.headers['x-event-id']).toBe(posts[1]!.headers['x-event-id']);
  const alerts = new Set(posts.map((p) => p.body.alert));
  expect(alerts).toEqual(new Set(['circuit_opened', 'endpoint_paused', 'endpoint_resumed', 'circuit_closed']));
  expect(posts.find((p) => p.body.alert === 'endpoint_paused')!.body).toEqual({
    alert: 'endpoint_paused',
    partner_id: flaky.id,
    endpoint: 'callback',
    at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
  });
  expect(posts[0]!.raw).not.toContain(lead.phone);
}, 60_000);

it('mails the deliveries given up in a period as one digest', async () => {
  // At once: every delivery gives up (404, then once more) well before a pause could hold them.
  const leads = await Promise.all([1, 2, 3, 4].map(() => sendLead(app.url, gone, {})));
  await deliveriesSettled(manager, gone.id, 'dead', (all) => all.length === 4);
  const deaths = app.runtime.mongo.db.collection('alert_dead_deliveries');
  await until(async () => (await deaths.countDocuments({ partner_id: gone.id })) === 4, 15_000, 'four deaths seen');
  await alerts.worker.scan();
  expect(await subjects(admins.gone!.email)).toEqual([]); // the period is not over
  offset = HOUR;
  await alerts.worker.scan();
  const [digest] = await waitForMail(admins.gone!.email);
  expect(digest?.Subject).toBe('gone: 4 callbacks or postbacks gave up');
  for (const lead of leads) expect(digest?.Text).not.toContain(lead.phone);
  await alerts.worker.scan();
  expect(await mailTo(admins.gone!.email)).toHaveLength(1);
  offset = 0;
}, 60_000);

it('tells of each cap at 80% and full, by day, hour and country, and of a grace ending', async () => {
  for (let n = 0; n < 4; n++) expect((await sendLead(app.url, capped, {})).status).toBe('accepted');
  await alerts.worker.scan();
  const to = admins.capped!.email;
  await mailAbout(to, 'capped: daily cap is 80% used');
  await mailAbout(to, 'capped: hourly cap for GB is 80% used');
  expect((await sendLead(app.url, capped, {})).status).toBe('accepted');
  await alerts.worker.scan();
  const full = await mailAbout(to, 'capped: daily cap is reached');
  expect(full.Text).toContain('all 5 leads of its daily cap');
  await mailAbout(to, 'capped: hourly cap for GB is reached');
  await mailAbout(affiliateManager.email, 'capped: daily cap is reached');

  const rotated = await manager.post<{ grace_until: string }>(`/api/affiliates/${capped.id}/rotate-key`, {
    grace_seconds: 3600,
  });
  expect(rotated.status).toBe(200);
  await alerts.worker.scan();
  const until = rotated.body.grace_until.slice(0, 16).replace('T', ' ');
  await mailAbout(to, `capped: the replaced key and secrets stop working at ${until} UTC`);
}, 60_000);

it("tells a sandbox partner's people of its caps, counted apart from live leads", async () => {
  for (let n = 0; n < 2; n++) expect((await sendLead(app.url, sandbox, {})).status).toBe('accepted');
  await alerts.worker.scan();
  await mailAbout(admins.sandbox!.email, 'sandbox: daily cap is reached');
}, 30_000);

it('mails the daily summary to whoever asked for it, once their own day is over', async () => {
  const admin = admins.capped!;
  const kinds = (await admin.client.get<{ kinds: string[] }>('/portal/api/me/alerts')).body.kinds;
  await expectStatus(admin.client.send('PUT', '/portal/api/me/alerts', { kinds: [...kinds, 'daily_summary'] }), 200);
  // The admin reads in New York (UTC-5, -4 in summer): their day ends at 05:00 (04:00) UTC the next
  // day; the partner counts in UTC.
  await expectStatus(admin.client.send('PATCH', '/portal/api/me', { time_zone: 'America/New_York' }), 200);
  const day = new Date().toISOString().slice(0, 10);
  await until(
    async () =>
      (await admin.client.get<{ totals: { accepted: number } }>(`/portal/api/overview?from=${day}&to=${day}`)).body
        .totals?.accepted === 5,
    30_000,
    'the day counted',
  );
  // The admin's summary of a day, queued (the outbox, not Mailpit: what is queued is there at once).
  const summaryOf = (d: string) => {
    const alert = { kind: 'daily_summary', partnerId: capped.id, day: d } as Alert;
    return app.runtime.mongo.db
      .collection('mail_outbox')
      .countDocuments({ _id: mailIdOf(alertKey(alert, HOUR), admin.id) as never });
  };
  const dayBefore = new Date(Date.parse(day) - 24 * HOUR).toISOString().slice(0, 10);
  // Twenty past midnight in UTC, the evening in New York: their last whole day is the one before.
  offset = Date.parse(`${day}T00:20:00Z`) + 24 * HOUR - Date.now();
  await alerts.worker.scan();
  expect([await summaryOf(dayBefore), await summaryOf(day)]).toEqual([1, 0]);
  await mailAbout(admin.email, `capped: your day ${dayBefore}`);
  offset = Date.parse(`${day}T05:20:00Z`) + 24 * HOUR - Date.now();
  await alerts.worker.scan();
  expect(await summaryOf(day)).toBe(1);
  const summary = await mailAbout(admin.email, `capped: your day ${day}`);
  expect(summary.Text).toMatch(/accepted +5/);
  expect(await subjects(affiliateManager.email)).not.toContain(`capped: your day ${day}`);
  // Once per day: a later scan of the same day queues nothing more.
  const queued = await outboxes();
  await alerts.worker.scan();
  expect(await outboxes()).toEqual(queued);
  // Off again, so the restart below finds nothing new to tell.
  await expectStatus(admin.client.send('PUT', '/portal/api/me/alerts', { kinds }), 200);
  await expectStatus(admin.client.send('PATCH', '/portal/api/me', { time_zone: null }), 200);
  offset = 0;
}, 60_000);

it('sends nothing twice when a worker starts afresh and reads every event again', async () => {
  const people = [...Object.values(admins).map((a) => a.email), affiliateManager.email];
  const before = await Promise.all(people.map(subjects));
  const posted = receiver.at('/flaky-alerts').length;
  const queued = await outboxes();
  await alerts.stop();
  alerts = await startAlertsStack(app, clock, 'second');
  const { groupId } = await alerts.worker.consumer.consumer.describeGroup();
  const { topics } = app.runtime;
  await groupCaughtUp(app.runtime, groupId, [topics.partnerAlerts, topics.callbacksDead], 'every event read again');
  await alerts.worker.scan();
  // Nothing new went into either outbox (what would be sent twice is queued there first).
  expect(await outboxes()).toEqual(queued);
  expect(await Promise.all(people.map(subjects))).toEqual(before);
  expect(receiver.at('/flaky-alerts')).toHaveLength(posted);
}, 60_000);
