import { Registry } from 'prom-client';
import { startAlertsWorker, type AlertsWorker } from '../../src/alerts/commands';
import type { Clock } from '../../src/shared/clock';
import { loadConfig, type AlertsConfig, type MailConfig } from '../../src/shared/config';
import { createLogger } from '../../src/shared/logger';
import { startMailSender } from '../../src/shared/mail/mail-sender';
import { Mailer } from '../../src/shared/mail/mailer';
import { MailOutbox } from '../../src/shared/mail/outbox';
import { smtpRelay } from '../../src/shared/mail/smtp-relay';
import type { PeriodicTask } from '../../src/shared/periodic-task';
import { mailEnv } from './mailpit';
import type { TestApp } from './test-app';
import { testEnv } from './test-config';

// The alerts worker and the mail sender beside a test app, on its servers, with a clock the test
// moves (a digest's period ends, a day ends) and the scans run when the test says: the app itself
// runs without mail, so these are the only ones. `group` names a consumer group of its own (a
// worker that starts afresh reads every event again).
export interface AlertsStack {
  worker: AlertsWorker;
  sender: PeriodicTask;
  stop(): Promise<void>;
}

export const ALERTS: AlertsConfig = {
  scanMs: 3_600_000,
  periodS: 3600,
  capWarnPercent: 80,
  graceNoticeS: 86_400,
  webhookPollMs: 50,
};

export async function startAlertsStack(app: TestApp, clock: Clock, group: string): Promise<AlertsStack> {
  const mail = loadConfig(testEnv(mailEnv({ MAIL_POLL_MS: '50' }))).mail as MailConfig;
  const { mongo, cipher, redis } = app.runtime;
  const logger = createLogger('silent');
  const outbox = new MailOutbox(mongo.db, cipher, clock);
  const sender = await startMailSender(outbox, smtpRelay(mail, 'alerts.test'), mail, new Registry(), logger);
  const consumers = app.runtime.consumers;
  const worker = await startAlertsWorker({
    consumers: {
      ...consumers,
      settings: { ...consumers.settings, groupPrefix: `${consumers.settings.groupPrefix}${group}-` },
    },
    db: mongo.db,
    partners: mongo.collections.partners,
    redis,
    mailer: new Mailer(outbox, 'LeadIntake', mail.pagesUrl),
    config: ALERTS,
    webhooks: { partners: app.runtime.partners, callbacks: app.config.callbacks, serviceName: 'LeadIntake' },
    clock,
    metrics: new Registry(),
    logger,
  });
  return {
    worker,
    sender,
    async stop() {
      await worker.stop();
      await sender.stop();
    },
  };
}
