import type { Collection, Db } from 'mongodb';
import type { Registry } from 'prom-client';
import { retrySchedule } from '../dispatcher/commands';
import type { AlertsConfig, CallbackConfig } from '../shared/config';
import type { Clock } from '../shared/clock';
import { startBatchConsumer, type BatchConsumer, type Decoded } from '../shared/kafka/batch-consumer';
import type { ConsumerClients } from '../shared/kafka/consumer-settings';
import type { Logger } from '../shared/logger';
import type { Mailer } from '../shared/mail/mailer';
import type { PartnerDoc } from '../shared/mongo/documents';
import type { PartnerDirectory } from '../shared/partners/partner-directory';
import { everyInterval, type PeriodicTask } from '../shared/periodic-task';
import type { Redis } from '../shared/redis/client';
import { untilDone } from '../shared/retriable';
import type { DeliveryTask, PartnerAlert } from '../shared/schemas';
import { isForWebhook, type Alert } from './alert-kinds';
import { alertMetrics } from './alert-metrics';
import { alertMails } from './alert-mails';
import { AlertPreferences } from './alert-preferences';
import { AlertRecipients } from './alert-recipients';
import { AlertScans } from './alert-scans-io';
import { DeadDeliveries, type DeadDeliveryDoc } from './dead-deliveries';
import { periodStart } from './alert-scans';
import { WebhookOutbox } from './webhook-outbox';
import { startWebhookSender } from './webhook-sender';

export interface AlertsDeps {
  consumers: ConsumerClients;
  db: Db;
  partners: Collection<PartnerDoc>;
  redis: Redis; // the caps' counters
  mailer: Mailer;
  config: AlertsConfig;
  // A partner's webhook for its alerts is signed and retried as its callbacks are.
  webhooks: { partners: PartnerDirectory; callbacks: CallbackConfig; serviceName: string };
  clock: Clock;
  metrics: Registry;
  logger: Logger;
}

export interface AlertsWorker {
  consumer: BatchConsumer;
  // Runs the scans now (a test's injected clock moved on).
  scan(): Promise<void>;
  stop(): Promise<void>;
}

// Events and deaths older than this are history when first read (a new group reads from the
// beginning): they are not told any more.
const STALE_PERIODS = 2;

// The alerts worker: reads the alert events (partners.alerts) and the dead deliveries
// (callbacks.dead), scans caps, graces, finished digest periods and days every ALERT_SCAN_MS, and
// queues one mail per alert and chosen person into the mail outbox, each under a fence id, so a
// redelivered event, a second worker or a restart never queues one twice.
export async function startAlertsWorker(d: AlertsDeps): Promise<AlertsWorker> {
  const logger = d.logger.child({ component: 'alerts' });
  const periodMs = d.config.periodS * 1000;
  const recipients = new AlertRecipients(d.db, new AlertPreferences(d.db, d.clock));
  const dead = new DeadDeliveries(d.db);
  await dead.ensureIndexes();
  const hooks = new WebhookOutbox(d.db, d.clock);
  await hooks.ensureIndexes();
  const metrics = alertMetrics(d.metrics, hooks);
  const maxAttempts = retrySchedule(d.webhooks.callbacks.retryDelaysS).maxAttempts;
  const retrying = (what: string) => (err: unknown, attempt: number) =>
    logger.warn({ what, attempt, err: (err as Error).message }, 'alerts: call failed; trying again');

  const tell = async (alerts: readonly Alert[]): Promise<void> => {
    for (const alert of alerts) {
      const partner = await d.partners.findOne({ _id: alert.partnerId }, { projection: { name: 1 } });
      if (!partner) continue;
      const mails = alertMails(alert, partner.name, await recipients.of(alert.partnerId), d.mailer.pagesUrl, {
        periodMs,
      });
      let queued = 0;
      for (const m of mails) if (await d.mailer.sendOnce(m.id, m.template, m.to, m.values as never)) queued++;
      if (queued === 0) continue;
      metrics.told.inc({ kind: alert.kind, channel: 'mail' }, queued);
      logger.info({ kind: alert.kind, partner_id: alert.partnerId, queued }, 'alert queued');
    }
    for (const a of await hooks.enqueue(alerts.filter(isForWebhook), periodMs, maxAttempts))
      metrics.told.inc({ kind: a.kind, channel: 'webhook' });
  };
  const scans = new AlertScans({ ...d, dead, recipients, periodMs, tell });

  const handle = async (records: Decoded<PartnerAlert | DeliveryTask>[]): Promise<void> => {
    const now = d.clock.now().getTime();
    const fresh = (atMs: number) => atMs >= periodStart(now, periodMs) - STALE_PERIODS * periodMs;
    const alerts: Alert[] = [];
    const deaths: DeadDeliveryDoc[] = [];
    for (const r of records) {
      if (r.topic === 'partnerAlerts') {
        const a = r.value as PartnerAlert;
        metrics.events.inc({ kind: a.kind });
        const at = new Date(a.at);
        if (fresh(at.getTime())) alerts.push({ kind: a.kind, partnerId: a.partner_id, endpoint: a.endpoint, at });
      } else {
        const task = r.value as DeliveryTask;
        const atMs = Number(r.message.timestamp);
        if (!fresh(atMs)) continue;
        const period = periodStart(atMs, periodMs);
        deaths.push({ _id: `${task.delivery_id}:${period}`, partner_id: task.event.partner_id, period });
      }
    }
    await untilDone(() => dead.record(deaths), retrying('record dead deliveries'));
    await untilDone(() => tell(alerts), retrying('queue alerts'));
  };

  const consumer = await startBatchConsumer<PartnerAlert | DeliveryTask>(
    { ...d.consumers, logger },
    {
      group: 'alerts',
      topics: ['partnerAlerts', 'callbacksDead'],
      fromBeginning: true,
      handle,
      undecodable: async (items, ctx) => {
        for (const item of items)
          logger.error(
            { topic: ctx.topic, partition: ctx.partition, offset: item.message.offset, reason: item.error.reason },
            'skipped an undecodable alert event',
          );
      },
    },
  );
  const scanner: PeriodicTask = everyInterval('alert scans', d.config.scanMs, () => scans.all(), logger);
  const poster = startWebhookSender({
    ...d.webhooks,
    outbox: hooks,
    posts: metrics.webhookPosts,
    pollMs: d.config.webhookPollMs,
    clock: d.clock,
    logger,
  });
  return {
    consumer,
    scan: () => scans.all(),
    async stop() {
      await scanner.stop();
      await consumer.stop();
      await poster.stop();
    },
  };
}
