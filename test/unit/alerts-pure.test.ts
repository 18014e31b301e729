import { DEFAULT_ALERT_KINDS, type Alert, type Recipient } from '../../src/alerts/alert-kinds';
import { alertKey, alertMails } from '../../src/alerts/alert-mails';
import { capAlerts, digestAlerts, graceAlert, summaryAlert } from '../../src/alerts/alert-scans';
import { webhookBody, webhookId } from '../../src/alerts/webhook-state';
import { renderMail, TEMPLATE_VALUES } from '../../src/shared/mail/templates';

// The alerts' decisions: who is mailed what, under which fence, from which reads.
const HOUR = 3_600_000;
const rules = { periodMs: HOUR };
const people: Recipient[] = [
  { accountId: 'acc-a', realm: 'portal', email: 'a@partner.example', kinds: DEFAULT_ALERT_KINDS, timeZone: null },
  {
    accountId: 'acc-m',
    realm: 'manager',
    email: 'm@leads.example',
    kinds: ['circuit_opened', 'daily_summary'],
    timeZone: null,
  },
  { accountId: 'acc-q', realm: 'portal', email: 'q@partner.example', kinds: [], timeZone: 'Asia/Kolkata' },
];
const opened = (at: string): Alert => ({
  kind: 'circuit_opened',
  partnerId: 'pa-1',
  endpoint: 'callback',
  at: new Date(at),
});

describe('the mails of an alert', () => {
  it('go to each person who chose its kind, with a link into their own pages', () => {
    const mails = alertMails(opened('2030-01-01T10:05:00Z'), 'Acme', people, 'https://leads.example', rules);
    expect(mails.map((m) => [m.to, m.template, m.values.link])).toEqual([
      ['a@partner.example', 'alert-circuit-opened', 'https://leads.example/portal/#/deliveries'],
      ['m@leads.example', 'alert-circuit-opened', 'https://leads.example/console/#/partners/pa-1'],
    ]);
    expect(mails[0]!.values).toEqual({
      partner: 'Acme',
      endpoint: 'callback',
      at: '2030-01-01 10:05',
      link: 'https://leads.example/portal/#/deliveries',
    });
  });

  it('are fenced per alert, period and person: a circuit opening twice in a period is told once', () => {
    const ids = (at: string) => alertMails(opened(at), 'Acme', people, 'x', rules).map((m) => m.id);
    expect(ids('2030-01-01T10:05:00Z')).toEqual(ids('2030-01-01T10:55:00Z'));
    expect(ids('2030-01-01T11:05:00Z')).not.toEqual(ids('2030-01-01T10:05:00Z'));
    const [a, m] = ids('2030-01-01T10:05:00Z');
    expect(a).not.toBe(m);
    expect(a).toMatch(/^ml-al-[0-9a-f]{32}$/);
  });

  it('tell a cap once per counter, whatever its use when read', () => {
    const cap = (used: number, counter: string): Alert => ({
      kind: 'cap_reached',
      partnerId: 'pa-1',
      scope: 'country_hourly',
      country: 'GB',
      limit: 5,
      used,
      counter,
    });
    expect(alertKey(cap(5, 'cap:pa-1:GB:country_hourly:h1'), HOUR)).toBe(
      alertKey(cap(7, 'cap:pa-1:GB:country_hourly:h1'), HOUR),
    );
    expect(alertKey(cap(5, 'cap:pa-1:GB:country_hourly:h2'), HOUR)).not.toBe(
      alertKey(cap(5, 'cap:pa-1:GB:country_hourly:h1'), HOUR),
    );
    const [mail] = alertMails(cap(5, 'k'), 'Acme', people, 'x', rules);
    expect(renderMail('alert-cap-reached', { service: 'S', ...mail!.values } as never).subject).toBe(
      'Acme: hourly cap for GB is reached',
    );
  });

  it('fill only what their template may show', () => {
    const alerts: Alert[] = [
      opened('2030-01-01T10:00:00Z'),
      { kind: 'deliveries_dead', partnerId: 'p', from: new Date(0), to: new Date(HOUR), count: 3 },
      { kind: 'cap_warning', partnerId: 'p', scope: 'partner_daily', country: null, limit: 10, used: 8, counter: 'c' },
      { kind: 'secret_grace_ending', partnerId: 'p', until: new Date(HOUR) },
      {
        kind: 'daily_summary',
        partnerId: 'p',
        day: '2030-01-01',
        counts: { received: 1, accepted: 1, rejected: 0, ftd: 0 },
        audience: { accountIds: ['acc-m'], webhook: true },
      },
    ];
    for (const alert of alerts)
      for (const mail of alertMails(alert, 'Acme', people, 'x', rules)) {
        const allowed: readonly string[] = TEMPLATE_VALUES[mail.template];
        expect(Object.keys(mail.values).filter((k) => !allowed.includes(k))).toEqual([]);
        expect(renderMail(mail.template, { service: 'S', ...mail.values } as never).text).not.toMatch(/\{\{/);
      }
  });
});

describe('the scans', () => {
  const use = (used: number, limit = 10) => ({
    scope: 'partner_daily' as const,
    country: null,
    limit,
    used,
    left: Math.max(0, limit - used),
    counter: 'cap:pa-1:all:partner_daily:2030-01-01',
  });

  it('warn of a cap at its share, and tell only that it is full once it is', () => {
    expect(capAlerts('pa-1', [use(7)], 80)).toEqual([]);
    expect(capAlerts('pa-1', [use(8)], 80).map((a) => a.kind)).toEqual(['cap_warning']);
    expect(capAlerts('pa-1', [use(10)], 80).map((a) => a.kind)).toEqual(['cap_reached']);
    expect(capAlerts('pa-1', [use(12)], 80).map((a) => a.kind)).toEqual(['cap_reached']);
  });

  it('tell of a grace only within the notice, and not once it is over', () => {
    const until = new Date(10 * HOUR);
    expect(graceAlert('pa-1', until, 0, 5 * HOUR)).toEqual([]);
    expect(graceAlert('pa-1', until, 4 * HOUR, 5 * HOUR)).toEqual([]);
    expect(graceAlert('pa-1', until, 5 * HOUR, 5 * HOUR)).toEqual([
      { kind: 'secret_grace_ending', partnerId: 'pa-1', until },
    ]);
    expect(graceAlert('pa-1', until, 10 * HOUR, 24 * HOUR)).toEqual([]);
    expect(graceAlert('pa-1', null, 0, 24 * HOUR)).toEqual([]);
  });

  it('make one digest per partner and period, however many deliveries died', () => {
    const dead = [
      { partner_id: 'a', period: 0 },
      { partner_id: 'a', period: 0 },
      { partner_id: 'b', period: 0 },
      { partner_id: 'a', period: HOUR },
    ];
    expect(digestAlerts(dead, HOUR)).toEqual([
      { kind: 'deliveries_dead', partnerId: 'a', from: new Date(0), to: new Date(HOUR), count: 2 },
      { kind: 'deliveries_dead', partnerId: 'b', from: new Date(0), to: new Date(HOUR), count: 1 },
      { kind: 'deliveries_dead', partnerId: 'a', from: new Date(HOUR), to: new Date(2 * HOUR), count: 1 },
    ]);
  });

  it('summarise a day, its cells added up, for the people whose day it is only', () => {
    const cells = {
      'GB|search': { received: 3, accepted: 2, rejected_cap: 1 },
      'DE|': { received: 2, accepted: 1, rejected_country: 1, ftd: 1 },
    };
    const due = { day: '2030-01-01', accountIds: ['acc-q'], webhook: false };
    const summary = summaryAlert('pa-1', due, cells);
    expect(summary).toEqual({
      kind: 'daily_summary',
      partnerId: 'pa-1',
      day: '2030-01-01',
      counts: { received: 5, accepted: 3, rejected: 2, ftd: 1 },
      audience: { accountIds: ['acc-q'], webhook: false },
    });
    const chose = people.map((p) => ({ ...p, kinds: ['daily_summary' as const] }));
    expect(alertMails(summary, 'Acme', chose, 'x', rules).map((m) => m.to)).toEqual(['q@partner.example']);
    // One mail per person and day, whoever else it is due for.
    const again = summaryAlert('pa-1', { ...due, accountIds: ['acc-a', 'acc-q'] }, cells);
    expect(alertMails(again, 'Acme', chose, 'x', rules).map((m) => m.id)[1]).toBe(
      alertMails(summary, 'Acme', chose, 'x', rules)[0]!.id,
    );
    expect(webhookBody(summary)).toEqual({
      alert: 'daily_summary',
      partner_id: 'pa-1',
      day: '2030-01-01',
      counts: { received: 5, accepted: 3, rejected: 2, ftd: 1 },
    });
  });
});

describe("an alert's webhook post", () => {
  it('carries the facts of the alert, dates as ISO strings, under one id per alert', () => {
    const alert: Alert = {
      kind: 'cap_reached',
      partnerId: 'pa-1',
      scope: 'country_daily',
      country: 'GB',
      limit: 5,
      used: 5,
      counter: 'cap:pa-1:GB:country_daily:2030-01-01',
    };
    expect(webhookBody(alert)).toEqual({
      alert: 'cap_reached',
      partner_id: 'pa-1',
      scope: 'country_daily',
      country: 'GB',
      limit: 5,
      used: 5,
    });
    expect(webhookBody({ kind: 'secret_grace_ending', partnerId: 'pa-1', until: new Date(0) })).toEqual({
      alert: 'secret_grace_ending',
      partner_id: 'pa-1',
      until: '1970-01-01T00:00:00.000Z',
    });
    expect(webhookId(opened('2030-01-01T10:05:00Z'), HOUR)).toBe(webhookId(opened('2030-01-01T10:50:00Z'), HOUR));
    expect(webhookId(opened('2030-01-01T10:05:00Z'), HOUR)).toMatch(/^wh-al-[0-9a-f]{32}$/);
  });
});
