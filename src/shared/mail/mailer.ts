import type { MailOutbox } from './outbox';
import type { TemplateName, TemplateValues } from './templates';

// What the routes use to send mail: a message into the outbox (the request never waits for the
// relay), with the service's name filled in. Null where no relay is configured (SMTP_URL unset).
export class Mailer {
  constructor(
    readonly outbox: MailOutbox,
    private readonly serviceName: string,
    // Where the console and the portal are reached (CONSOLE_URL): links in a mail are whole.
    readonly pagesUrl: string,
  ) {}

  link(path: string): string {
    return `${this.pagesUrl}${path}`;
  }

  send<T extends TemplateName>(template: T, to: string, values: Omit<TemplateValues<T>, 'service'>): Promise<string> {
    return this.outbox.enqueue(template, to, { ...values, service: this.serviceName } as TemplateValues<T>);
  }

  // Once per id (the outbox's fence): false when a mail of that id was already queued.
  sendOnce<T extends TemplateName>(
    id: string,
    template: T,
    to: string,
    values: Omit<TemplateValues<T>, 'service'>,
  ): Promise<boolean> {
    return this.outbox.enqueueOnce(id, template, to, { ...values, service: this.serviceName } as TemplateValues<T>);
  }
}
