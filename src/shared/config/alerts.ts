import type { EnvReader } from './env-reader';

// Alerts to partners' people and their managers (src/alerts), mailed through the outbox: on only
// where mail is (SMTP_URL set).
export interface AlertsConfig {
  // How often the alerts worker reads caps, secrets' graces, finished digest periods and days.
  readonly scanMs: number;
  // The period of the dead-deliveries digest (one mail per period), and the period within which an
  // endpoint's or circuit's alert of one kind is sent once.
  readonly periodS: number;
  // A cap's use at which its warning goes (percent of the limit).
  readonly capWarnPercent: number;
  // How long before a secret's grace ends its people are told.
  readonly graceNoticeS: number;
  // The longest the sender of alert webhooks waits before it reads its outbox again (a post queued in
  // its process, or falling due, wakes it at once).
  readonly webhookPollMs: number;
}

export function readAlerts(r: EnvReader): AlertsConfig {
  return {
    scanMs: r.int('ALERT_SCAN_MS', 60000, 50, 3600000),
    periodS: r.int('ALERT_PERIOD_S', 3600, 1, 86400),
    capWarnPercent: r.int('ALERT_CAP_WARN_PERCENT', 80, 1, 99),
    graceNoticeS: r.int('ALERT_GRACE_NOTICE_S', 86400, 60, 604800),
    webhookPollMs: r.int('ALERT_WEBHOOK_POLL_MS', 60000, 10, 600000),
  };
}
