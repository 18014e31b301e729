import { Counter, Gauge, type Registry } from 'prom-client';
import type { MailConfig } from '../config';
import type { Logger } from '../logger';
import { BACKLOG_BOUND } from '../mongo/leased-work';
import { everyInterval, whenDue, type PeriodicTask } from '../periodic-task';
import type { MailOutbox } from './outbox';
import type { MailRelay } from './smtp-relay';
import { renderMail, TEMPLATE_NAMES, type TemplateName, type TemplateValues } from './templates';
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
  const queued = new Counter({
    name: 'lead_intake_mail_queued_total',
    help: 'Mail queued into the outbox by this process, by template',
    labelNames: ['template'],
    registers: [metrics],
  });
  const tries = new Counter({
    name: 'lead_intake_mail_tries_total',
    help: 'Tries to hand a mail to the SMTP relay, by template and outcome (sent, retry: failed and tried again later, dead)',
    labelNames: ['template', 'outcome'],
    registers: [metrics],
  });
  // Every series there from the start, at 0: a rate over a template never mailed yet reads 0, not nothing.
  for (const template of TEMPLATE_NAMES) {
    queued.inc({ template }, 0);
    for (const outcome of ['sent', 'retry', 'dead']) tries.inc({ template, outcome }, 0);
  }
  new Gauge({
    name: 'lead_intake_mail_outbox',
    help: `Mail in the outbox by state (queued: waiting for a try; sending: being tried; dead: given up, see GET /api/mail), counted up to ${BACKLOG_BOUND}`,
    labelNames: ['state'],
    registers: [metrics],
    async collect() {
      for (const state of ['queued', 'sending', 'dead'] as const)
        this.set({ state }, await outbox.count(state, BACKLOG_BOUND));
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
  outbox.onQueued((template) => {
    queued.inc({ template });
    send.soon();
  });
  const prune = everyInterval('mail-prune', 3600 * 1000, () => outbox.pruneSent(), logger);
  return {
    soon: () => send.soon(),
    async stop() {
      await Promise.all([send.stop(), prune.stop()]);
      relay.close();
    },
  };
}
