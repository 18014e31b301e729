import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { AgentAction } from '../../src/shared/schemas';
import { CallbackReceiver, status } from '../support/callback-receiver';
import { mailEnv } from '../support/mailpit';
import { produce } from '../support/intake-commands';
import { opsTools } from '../support/ops-tools';
import { PartnerClient } from '../support/partner-client';
import { PrometheusServer } from '../support/prometheus';
import { startTestApp, type TestApp } from '../support/test-app';
import { servicesOf } from '../support/manager-services';

// The dashboard and the alert rules against a real Prometheus (Debian's) scraping the running
// service: traffic with every intake outcome, a CRM dead letter and a callback that goes dead, then
// every panel's query and every alert's query must return data.
const FILES = join(__dirname, '..', '..', 'helm', 'lead-intake', 'files');
const ALERTS_FILE = join(FILES, 'alerts.yml');

interface Panel {
  title: string;
  type: string;
  targets?: { refId: string; expr: string }[];
}
interface Rule {
  alert: string;
  expr: string;
}

const dashboard = JSON.parse(readFileSync(join(FILES, 'dashboard.json'), 'utf8')) as { panels: Panel[] };
const panels = dashboard.panels.filter((p) => p.type !== 'row');
const targets = panels.flatMap((p) => (p.targets ?? []).map((t) => [p.title, t.refId, t.expr] as const));
const rules = (parse(readFileSync(ALERTS_FILE, 'utf8')) as { groups: { rules: Rule[] }[] }).groups.flatMap(
  (g) => g.rules,
);

// Grafana's variables as the dashboard opens with every partner selected, on a 1 s scrape.
const asPromQL = (expr: string) => expr.replaceAll('$__rate_interval', '1m').replace(/\$\{?partner\}?/g, '.*');

// The series an alert watches, whether or not it fires: each threshold comparison becomes a 0/1
// comparison (`x > 0.5` -> `x > bool 0.5`, which keeps every series of x), and absent(x) reads as x.
const watchedSeries = (expr: string) =>
  expr.replace(/\babsent\(/g, '(').replace(/(==|!=|>=|<=|>|<)\s*(?=[-+]?\.?\d)/g, '$1 bool ');

let app: TestApp;
let prometheus: PrometheusServer;
let receiver: CallbackReceiver;
let partnerIds: string[];

beforeAll(async () => {
  const tools = opsTools();
  receiver = await new CallbackReceiver().start();
  // An action for an unknown lead is parked 1 s here before it is dead-lettered (15 minutes by default).
  // Mail on (Mailpit), so the alerts and mail row has its series.
  app = await startTestApp(
    mailEnv({
      ROLE: 'all',
      CALLBACK_RETRY_DELAYS_S: '1,1,1,1',
      BLOCKED_COUNTRIES: 'KP',
      CRM_PARK_MAX_MS: '1000',
    }),
  );
  prometheus = await new PrometheusServer(tools.PROMETHEUS_BIN, [new URL(app.url).host], [ALERTS_FILE]).start();
  expect(await prometheus.queryUntilData('up{job="lead-intake"} == 1', 15_000)).toHaveLength(1);
  partnerIds = await driveTraffic();
  // Both kinds of dead letter are in, and scraped.
  expect(await prometheus.queryUntilData('lead_intake_callback_dead_letters_total > 0', 30_000)).not.toEqual([]);
  expect(await prometheus.queryUntilData('lead_intake_crm_dead_letters_total > 0', 15_000)).not.toEqual([]);
}, 90_000);

afterAll(async () => {
  await prometheus?.stop();
  await app?.destroy();
  await receiver?.stop();
});

async function driveTraffic(): Promise<string[]> {
  const rt = app.runtime;
  const good = await servicesOf(rt).partners.create({
    name: 'Metrics good',
    callback_url: receiver.url('/good'),
    rate_limits: { intake_per_minute: 1000 },
  });
  receiver.route('/good', good.secrets.callback_secret);
  const failing = await servicesOf(rt).partners.create({
    name: 'Metrics failing',
    callback_url: receiver.url('/failing'),
  });
  receiver.route('/failing', failing.secrets.callback_secret, status(500));
  const limited = await servicesOf(rt).partners.create({
    name: 'Metrics limited',
    rate_limits: { intake_per_minute: 1 },
  });
  const capped = await servicesOf(rt).partners.create({ name: 'Metrics capped', caps: { daily: 0 } });

  const client = new PartnerClient(app.url, good.secrets);
  const lead = { external_id: 'm-1', phone: '+4915112345671', country: 'DE', source: 'metrics' };
  expect((await client.submitLead(lead, { idempotencyKey: 'k-1' })).body).toMatchObject({ status: 'accepted' });
  expect((await client.submitLead(lead, { idempotencyKey: 'k-1' })).body).toMatchObject({ replay: true });
  expect((await client.submitLead({ ...lead, external_id: 'm-2' })).body).toMatchObject({ status: 'duplicate' });
  expect((await client.submitLead({ external_id: 'm-3', country: 'DE' })).body).toMatchObject({
    status: 'validation_error',
  });
  expect((await client.submitLead({ external_id: 'm-4', phone: '+4915112345674', country: 'KP' })).body).toMatchObject({
    status: 'rejected',
  });
  expect((await client.submitLead(lead, { apiKey: 'lk_not_a_key' })).status).toBe(401);
  expect((await client.leadStatus('m-1')).status).toBe(200);

  const limitedClient = new PartnerClient(app.url, limited.secrets);
  const answers = [];
  for (const n of [5, 6])
    answers.push(
      (await limitedClient.submitLead({ external_id: `l-${n}`, phone: `+491511234567${n}`, country: 'DE' })).status,
    );
  expect(answers).toEqual([200, 429]);

  const cappedClient = new PartnerClient(app.url, capped.secrets);
  expect(
    (await cappedClient.submitLead({ external_id: 'c-1', phone: '+4915112345680', country: 'DE' })).body,
  ).toMatchObject({ reason: 'cap_reached:partner_daily' });

  // A lead whose callbacks all fail with 500: five attempts 1 s apart, then dead.
  const failingClient = new PartnerClient(app.url, failing.secrets);
  expect(
    (await failingClient.submitLead({ external_id: 'f-1', phone: '+4915112345679', country: 'DE' })).body,
  ).toMatchObject({ status: 'accepted' });

  // An agent action for a lead that does not exist: the processor parks it, then dead-letters it.
  const action: AgentAction = {
    action_id: randomUUID(),
    lead_id: 'le-999999999',
    status: 'contacted',
    occurred_at: new Date().toISOString(),
  };
  await produce(rt, 'agentActions', [action], () => action.lead_id);

  await receiver.waitFor('/good', 2, 20_000); // lead.accepted and lead.rejected
  await receiver.waitFor('/failing', 5, 30_000);
  return [good.partner.id, failing.partner.id, limited.partner.id, capped.partner.id];
}

describe('Grafana dashboard', () => {
  it('has a query on every panel', () => {
    expect(panels.length).toBeGreaterThan(10);
    expect(panels.filter((p) => !p.targets?.length).map((p) => p.title)).toEqual([]);
  });

  it.each(targets)('panel "%s" query %s returns data', async (_title, _refId, expr) => {
    const series = (await prometheus.queryUntilData(asPromQL(expr), 20_000)).length;
    expect({ expr, hasData: series > 0 }).toEqual({ expr, hasData: true });
  });

  it('offers every partner that sent traffic in its partner filter', async () => {
    const values = await prometheus.get<string[]>(
      `/api/v1/label/partner_id/values?${new URLSearchParams({ 'match[]': 'lead_intake_requests_total' })}`,
    );
    expect(values).toEqual(expect.arrayContaining(partnerIds));
  });
});

describe('alert rules', () => {
  it('are all loaded by Prometheus and evaluate without error', async () => {
    const loaded = async () =>
      (
        await prometheus.get<{ groups: { rules: { name: string; health: string; lastError?: string }[] }[] }>(
          '/api/v1/rules',
        )
      ).groups
        .flatMap((g) => g.rules)
        .map((r) => ({ name: r.name, health: r.health, error: r.lastError ?? '' }));
    const expected = rules.map((r) => ({ name: r.alert, health: 'ok', error: '' }));
    const deadline = Date.now() + 10_000; // health is "unknown" until a rule's first evaluation
    while ((await loaded()).some((r) => r.health === 'unknown') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 250));
    expect(await loaded()).toEqual(expected);
  });

  it.each(rules.map((r) => [r.alert, r.expr] as const))('%s watches series that exist', async (_name, expr) => {
    const query = watchedSeries(expr);
    const series = (await prometheus.queryUntilData(query, 20_000)).length;
    expect({ query, hasData: series > 0 }).toEqual({ query, hasData: true });
  });

  it('fires on the dead letters the traffic made, and not for a running role', async () => {
    const deadline = Date.now() + 15_000;
    let firing: string[] = [];
    while (Date.now() < deadline) {
      const { alerts } = await prometheus.get<{ alerts: { labels: { alertname: string }; state: string }[] }>(
        '/api/v1/alerts',
      );
      firing = alerts.filter((a) => a.state === 'firing').map((a) => a.labels.alertname);
      if (firing.includes('LeadIntakeCallbackDeadLetters') && firing.includes('LeadIntakeCrmDeadLetters')) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(firing).toEqual(expect.arrayContaining(['LeadIntakeCallbackDeadLetters', 'LeadIntakeCrmDeadLetters']));
    expect(firing).not.toContain('LeadIntakeRoleDown');
    expect(firing).not.toContain('LeadIntakeTargetDown');
  });
});

describe('consumer lag', () => {
  it('is reported for every committing group, and the processor and dispatcher catch up', async () => {
    const prefix = app.config.kafka.topicPrefix;
    const groups = (await prometheus.query('max by (group) (lead_intake_kafka_consumer_lag_messages)'))
      .map((s) => s.metric.group)
      .sort();
    expect(groups).toEqual(
      [
        'dispatcher',
        'dispatcher-endpoints',
        'processor-crm',
        'processor-intake',
        'processor-report-cells',
        'processor-reports',
      ].map((g) => `${prefix}${g}`),
    );
    // Back to 0 proves the gauge reads the groups' real commits: under a wrong group name it would
    // count every message from the beginning. (The retry tiers' lag waits for due times.)
    const working = [
      'processor-intake',
      'processor-crm',
      'processor-reports',
      'processor-report-cells',
      'dispatcher',
      'dispatcher-endpoints',
    ]
      .map((g) => `${prefix}${g}`)
      .join('|');
    const behind = `max by (group) (lead_intake_kafka_consumer_lag_messages{group=~"${working}",topic!~".*callbacks[.]retry[.].*"}) > 0`;
    const deadline = Date.now() + 20_000;
    while ((await prometheus.query(behind)).length > 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 500));
    expect(await prometheus.query(behind)).toEqual([]);
  });
});
