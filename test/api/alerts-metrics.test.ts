import type { PartnerAlert } from '../../src/shared/schemas';
import { CallbackReceiver, status } from '../support/callback-receiver';
import { produce } from '../support/intake-commands';
import { linkIn, mailbox, mailEnv, waitForMail } from '../support/mailpit';
import { ManagerClient } from '../support/manager-client';
import { enrolPortal, type PortalInvitation } from '../support/portal-client';
import { receivingPartner, sendLead } from '../support/portal-data';
import { expectStatus } from '../support/session-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

// What operators see of the alerts path in /metrics: an alert from its event or its scan to a mail
// through Mailpit and a post to the partner's webhook, each counted by kind and outcome, the
// outboxes' backlog by state, and nothing of the partner or the person in a label.
let app: TestApp;
let receiver: CallbackReceiver;

beforeAll(async () => {
  app = await startTestApp(mailEnv({ ROLE: 'all', ALERT_SCAN_MS: '100', ALERT_WEBHOOK_POLL_MS: '50' }));
  receiver = await new CallbackReceiver().start();
}, 60_000);

afterAll(async () => {
  await app?.destroy();
  await receiver?.stop();
});

// The alerts' and the mail's series of /metrics, as `name{labels} value` lines.
async function alertSeries(): Promise<string[]> {
  const text = await (await fetch(`${app.url}/metrics`)).text();
  return text.split('\n').filter((l) => /^lead_intake_(alert|mail)/.test(l));
}

async function seriesUntil(expected: string[]): Promise<string[]> {
  return until(
    async () => {
      const lines = await alertSeries();
      return expected.every((e) => lines.includes(e)) ? lines : undefined;
    },
    15_000,
    `series ${expected.join(', ')}`,
  );
}

it("counts an alert's event, its mail and its webhook post, and the outboxes' backlog", async () => {
  const manager = new ManagerClient(app.url);
  const capped = await receivingPartner(manager, receiver, 'capped', status(200, 'ok'), { caps: { daily: 1 } });
  const email = mailbox('metrics-admin');
  const invited = await expectStatus(
    manager.post<PortalInvitation>(`/api/affiliates/${capped.id}/portal-invitations`, { email, name: 'Kim' }),
    201,
  );
  const [invitation] = await waitForMail(email);
  const token = linkIn(invitation!).split('#/link/')[1] as string;
  const admin = await enrolPortal(app.url, { ...invited.body, link: { ...invited.body.link, token } });
  receiver.route('/capped-alerts', capped.callback_secret, status(200, 'ok'));
  const url = receiver.url('/capped-alerts');
  await expectStatus(admin.client.send('PUT', '/portal/api/alerts/webhook', { url }), 200);

  // Every series is there before anything happened, at 0.
  expect(await alertSeries()).toEqual(
    expect.arrayContaining([
      'lead_intake_alert_events_total{kind="circuit_opened"} 0',
      'lead_intake_alerts_told_total{kind="cap_reached",channel="mail"} 0',
      'lead_intake_alert_webhook_posts_total{outcome="dead"} 0',
      'lead_intake_mail_tries_total{template="alert-cap-reached",outcome="sent"} 0',
    ]),
  );

  // A scan finds the cap full; an event tells of a circuit that opened.
  expect((await sendLead(app.url, capped, {})).status).toBe('accepted');
  const opened: PartnerAlert = {
    kind: 'circuit_opened',
    partner_id: capped.id,
    endpoint: 'callback',
    at: new Date().toISOString(),
  };
  await produce(app.runtime, 'partnerAlerts', [opened], () => capped.id);
  const mails = await waitForMail(email, 3);
  expect(mails.map((m) => m.Subject).sort()).toEqual([
    'You are invited to the LeadIntake partner portal',
    'capped: daily cap is reached',
    'capped: your callback endpoint is failing',
  ]);
  await receiver.waitFor('/capped-alerts', 2);

  const lines = await seriesUntil([
    'lead_intake_alert_events_total{kind="circuit_opened"} 1',
    'lead_intake_alerts_told_total{kind="cap_reached",channel="mail"} 1',
    'lead_intake_alerts_told_total{kind="cap_reached",channel="webhook"} 1',
    'lead_intake_alerts_told_total{kind="circuit_opened",channel="mail"} 1',
    'lead_intake_alerts_told_total{kind="circuit_opened",channel="webhook"} 1',
    'lead_intake_alert_webhook_posts_total{outcome="delivered"} 2',
    'lead_intake_mail_queued_total{template="portal-invitation"} 1',
    'lead_intake_mail_queued_total{template="alert-cap-reached"} 1',
    'lead_intake_mail_tries_total{template="alert-cap-reached",outcome="sent"} 1',
    'lead_intake_mail_tries_total{template="alert-circuit-opened",outcome="sent"} 1',
    'lead_intake_mail_outbox{state="queued"} 0',
    'lead_intake_mail_outbox{state="dead"} 0',
    'lead_intake_alert_webhook_outbox{state="queued"} 0',
    'lead_intake_alert_webhook_outbox{state="dead"} 0',
  ]);
  // The scans that find the same full cap again count nothing more.
  expect(lines).toContain('lead_intake_alerts_told_total{kind="cap_reached",channel="mail"} 1');
  for (const line of lines) {
    expect(line).not.toContain(capped.id);
    expect(line).not.toContain(email);
  }
}, 60_000);
