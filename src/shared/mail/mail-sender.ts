import { Counter, Gauge, type Registry } from 'prom-client';
import type { MailConfig } from '../config';
import type { Logger } from '../logger';
import { everyInterval, whenDue, type PeriodicTask } from '../periodic-task';
import type { MailOutbox } from './outbox';
import type { MailRelay } from './smtp-relay';
import { renderMail, type TemplateName, type TemplateValues } from './templates';
import type { MailState } from './outbox-state';

const BATCH = 20;

// The outbox's sender: it tries the mail due, one message at a time, each claimed first, as soon as
// a message is queued in this process and when the next one falls due (a retry, a claim left by a
// dead sender); MAIL_POLL_MS is only the longest it waits, for mail queued by another process. The
// process hosting the manager runs it (src/app.ts), as many as there are: the claim keeps them from
// trying one message twice.
export async function startMailSender(
  outbox: MailOutbox,
  relay: MailRelay,
  config: MailConfig,
  metrics: Registry,
  logger: Logger,
): Promise<PeriodicTask> {
  await outbox.ensureIndexes();
  const tries = new Counter({
    name: 'lead_intake_mail_tries_total',
    help: 'Tries to hand a mail to the SMTP relay, by template and outcome (sent, retry, dead)',
    labelNames: ['template', 'outcome'],
    registers: [metrics],
  });
  new Gauge({
    name: 'lead_intake_mail_outbox',
    help: 'Mail in the outbox by state (queued: waiting for a try; dead: given up, see GET /api/mail)',
    labelNames: ['state'],
    registers: [metrics],
    async collect() {
      for (const state of ['queued', 'sending', 'dead'] as const) this.set({ state }, await outbox.count(state));
    },
  });
  // A try may take the three SMTP timeouts (connect, greeting, socket) and some: nobody else takes it meanwhile.
  const leaseMs = config.smtpTimeoutMs * 4;
  const tryOne = async (id: string, doc: Awaited<ReturnType<MailOutbox['due']>>[number]): Promise<void> => {
    const mail = await outbox.claim(doc, leaseMs);
    if (!mail) return;
    const rendered = renderMail(mail.template, mail.values as TemplateValues<TemplateName>);
    const outcome = await relay.send(id, mail.to, rendered);
    let state: MailState = 'sent';
    if (outcome.ok) await outbox.sent(mail);
    else state = await outbox.failed(mail, outcome.error, outcome.permanent, config);
    tries.inc({ template: mail.template, outcome: state === 'queued' ? 'retry' : state });
    const log = { mail: id, template: mail.template, attempts: mail.attempts, state };
    if (outcome.ok) logger.info(log, 'mail sent');
    else logger.warn({ ...log, error: outcome.error }, 'mail not sent');
  };
  const send = whenDue(
    'mail-sender',
    config.pollMs,
    async () => {
      const due = await outbox.due(BATCH);
      for (const doc of due) await tryOne(doc._id, doc);
      return due.length === BATCH ? new Date() : outbox.nextDue();
    },
    logger,
  );
  outbox.onQueued(() => send.soon());
  const prune = everyInterval('mail-prune', 3600 * 1000, () => outbox.pruneSent(), logger);
  return {
    soon: () => send.soon(),
    async stop() {
      await Promise.all([send.stop(), prune.stop()]);
      relay.close();
    },
  };
}
