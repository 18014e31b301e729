import { loadConfig } from '../../src/shared/config';
import { systemClock } from '../../src/shared/clock';
import { MAIL_OUTBOX, MailOutbox } from '../../src/shared/mail/outbox';
import type { MailDoc } from '../../src/shared/mail/outbox-state';
import { freePort } from '../support/free-port';
import { mailbox, mailEnv, mailTo, waitForMail } from '../support/mailpit';
import { ManagerClient } from '../support/manager-client';
import { dropTestData, startTestApp, type TestApp } from '../support/test-app';
import { testEnv } from '../support/test-config';

// The outbox against a real relay (Mailpit) and a relay that is not there (a closed port): a
// request only queues a message; the sender tries it until the relay takes it, across a restart,
// and never hands one message over twice, however many senders run.
const apps: TestApp[] = [];
const start = async (env: Record<string, string>) => {
  const app = await startTestApp({}, loadConfig({ ...env, ROLE: 'ingress' }));
  apps.push(app);
  return app;
};
const outboxOf = (app: TestApp) => new MailOutbox(app.runtime.mongo.db, app.runtime.cipher, systemClock);
const docs = (app: TestApp) => app.runtime.mongo.db.collection<MailDoc>(MAIL_OUTBOX);
const values = { link: 'https://leads.example/console/#/link', expires_at: '2030-01-01 00:00' };

async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 15000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

afterEach(async () => {
  const config = apps[0]?.config;
  for (const app of apps.splice(0)) await app.stop();
  if (config) await dropTestData(config);
});

it('answers an invitation while the relay does not answer, keeps its mail through a restart, then delivers it once', async () => {
  const env = testEnv(mailEnv({ SMTP_URL: `smtp://127.0.0.1:${await freePort()}` }));
  const down = await start(env);
  const to = mailbox('relay-down');
  // The request answers at once: it only queues the mail.
  const invited = await new ManagerClient(down.url).post<{ invitation: { mail_id: string } }>('/api/accounts', {
    email: to,
    name: 'Pat',
    role: 'analyst',
  });
  expect(invited.status).toBe(201);
  const id = invited.body.invitation.mail_id;
  const waiting = await until(
    'two failed tries, waiting for the next',
    () => docs(down).findOne({ _id: id }),
    // Between tries: a read during the third finds it `sending`, its last error still on it.
    (d) => (d?.attempts ?? 0) >= 2 && d?.state === 'queued',
  );
  expect(waiting).toMatchObject({ state: 'queued', last_error: expect.stringMatching(/^E[A-Z]+$/) });
  await down.stop();
  apps.splice(0);

  const back = await start({ ...env, SMTP_URL: mailEnv().SMTP_URL as string });
  const [mail] = await waitForMail(to);
  expect(mail?.Subject).toBe('You are invited to the LeadIntake console');
  const sent = await until(
    'sent',
    () => docs(back).findOne({ _id: id }),
    (d) => d?.state === 'sent',
  );
  expect(sent).not.toHaveProperty('sealed');
  await new Promise((r) => setTimeout(r, 1000));
  expect(await mailTo(to)).toHaveLength(1);
});

it('hands each message to the relay once with two senders racing over one outbox', async () => {
  const env = testEnv(mailEnv({ MAIL_POLL_MS: '20' }));
  const [a, b] = [await start(env), await start(env)];
  const to = Array.from({ length: 12 }, (_, i) => mailbox(`race${i}`));
  await Promise.all(to.map((t) => outboxOf(a).enqueue('password-reset', t, { ...values, service: 'LeadIntake' })));
  for (const t of to) await waitForMail(t);
  await until(
    'all sent',
    () => docs(b).countDocuments({ state: 'sent' }),
    (n) => n === to.length,
  );
  await new Promise((r) => setTimeout(r, 1000));
  for (const t of to) expect(await mailTo(t)).toHaveLength(1);
});

it('marks a message dead after its tries, and managers see it without its content', async () => {
  const app = await start(
    testEnv(mailEnv({ SMTP_URL: `smtp://127.0.0.1:${await freePort()}`, MAIL_MAX_ATTEMPTS: '2' })),
  );
  const to = mailbox('dead');
  const id = await outboxOf(app).enqueue('password-reset', to, { ...values, service: 'LeadIntake' });
  const dead = await until(
    'dead',
    () => docs(app).findOne({ _id: id }),
    (d) => d?.state === 'dead',
  );
  expect(dead).toMatchObject({ attempts: 2 });
  expect(dead).not.toHaveProperty('sealed');
  const listed = await new ManagerClient(app.url).get('/api/mail?state=dead');
  expect(listed.status).toBe(200);
  expect(listed.body).toEqual({
    mail_enabled: true,
    items: [
      {
        id,
        state: 'dead',
        template: 'password-reset',
        to,
        attempts: 2,
        last_error: expect.stringMatching(/^E[A-Z]+$/),
        created_at: expect.any(String),
        next_at: null,
      },
    ],
  });
  const metrics = await (await fetch(`${app.url}/metrics`)).text();
  expect(metrics).toMatch(/lead_intake_mail_outbox\{state="dead"\} 1/);
  expect(metrics).toMatch(/lead_intake_mail_tries_total\{template="password-reset",outcome="dead"\} 1/);
});

it('sends mail queued in its process at once and tries again when a retry falls due, its poll a minute apart', async () => {
  const invite = async (app: TestApp, to: string) =>
    (
      await new ManagerClient(app.url).post<{ invitation: { mail_id: string } }>('/api/accounts', {
        email: to,
        name: 'Pat',
        role: 'analyst',
      })
    ).body.invitation.mail_id;
  const slowPoll = { MAIL_POLL_MS: '60000' };
  const up = await start(testEnv(mailEnv(slowPoll)));
  const to = mailbox('woken');
  await invite(up, to);
  await until(
    'the mail at the relay',
    () => mailTo(to),
    (m) => m.length === 1,
    5000,
  );

  const down = await start(testEnv(mailEnv({ ...slowPoll, SMTP_URL: `smtp://127.0.0.1:${await freePort()}` })));
  const id = await invite(down, mailbox('retried'));
  await until(
    'three tries',
    () => docs(down).findOne({ _id: id }),
    (d) => (d?.attempts ?? 0) >= 3,
    5000,
  );
});
