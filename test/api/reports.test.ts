import { randomUUID } from 'node:crypto';
import { eventsOf } from '../../src/processor/lead-events';
import { bareKafka } from '../../src/shared/kafka/client';
import { rebuildReportsOf } from '../../src/processor/reports';
import { localTime } from '../../src/shared/local-time';
import { cellsOf, type CellDoc } from '../../src/shared/reports/cell-store';
import type { AgentAction } from '../../src/shared/schemas';
import { produce } from '../support/intake-commands';
import { publishLeadEvents } from '../support/lead-events';
import { ManagerClient } from '../support/manager-client';
import { PartnerClient } from '../support/partner-client';
import {
  DAYS,
  EXPECTED,
  EXPECTED_TOTALS,
  playScenario,
  SCENARIO_LEADS,
  SCENARIO_REFUSALS,
  ZONES,
} from '../support/report-scenario';
import { startTestApp, type TestApp } from '../support/test-app';
import { reportsCaughtUp } from '../support/reports-caught-up';
import { until } from '../support/topic-probe';

// The reports against a hand-counted scenario over the real topics and store: the API and the CSV
// give the same numbers as the hand count, replays count nothing twice, the rebuild agrees.
let app: TestApp;
let manager: ManagerClient;
const partners = { a: '', b: '' };
let leads: Awaited<ReturnType<typeof playScenario>>;

type Figures = Record<string, unknown>;
type Report = {
  from: string;
  to: string;
  group_by: string[];
  rows: (Figures & { partner_id?: string; day?: string; country?: string | null; source?: string | null })[];
  totals: Figures;
};

// The figures of a report row compared between the JSON and the CSV, by their CSV column names.
const COUNTS = ['received', 'accepted', 'duplicates', 'validation_errors', 'rejected', 'contacted', 'ftd', 'rtd'];
const FIGURES = [...COUNTS, 'chargebacks', 'accepted_share', 'median_seconds_to_contact'];
const RANGE = `from=${DAYS.first}&to=${DAYS.second}`;
const report = async (query: string) => {
  const res = await manager.get<Report>(`/api/reports?${query}`);
  expect(res.status).toBe(200);
  return res.body;
};

const caughtUp = () => reportsCaughtUp(app.runtime);

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'all' });
  manager = new ManagerClient(app.url);
  partners.a = (await manager.post<{ id: string }>('/api/affiliates', { name: 'Tokyo', time_zone: ZONES.a })).body.id;
  partners.b = (
    await manager.post<{ id: string }>('/api/affiliates', { name: 'New York', time_zone: ZONES.b })
  ).body.id;
  leads = await playScenario(app.runtime, partners);
  await caughtUp();
}, 90000);

afterAll(async () => {
  await app?.destroy();
});

const fullReport = () => report(`${RANGE}&group_by=partner,country,source,day`);

describe('the hand-counted scenario', () => {
  it("gives the hand count per partner and partner's day, with totals", async () => {
    const body = await report(`${RANGE}&group_by=partner,day`);
    expect(body).toMatchObject({ from: DAYS.first, to: DAYS.second, group_by: ['partner', 'day'] });
    for (const [key, id] of Object.entries(partners) as ['a' | 'b', string][]) {
      for (const day of [DAYS.first, DAYS.second]) {
        const row = body.rows.find((r) => r.partner_id === id && r.day === day);
        expect({ partner: key, day, ...row }).toMatchObject({ partner: key, day, ...EXPECTED[key][day] });
      }
    }
    expect(body.rows).toHaveLength(4);
    expect(body.totals).toEqual(EXPECTED_TOTALS);
  });

  it('filters by partner, country and source, and reads only the days asked for', async () => {
    const de = await report(`${RANGE}&group_by=day&affiliate_id=${partners.a}&country=DE&source=google`);
    expect(de.rows.map((r) => [r.day, r.received, r.accepted, r.rejected, r.duplicates, r.contacted, r.ftd])).toEqual([
      [DAYS.first, 4, 2, 1, 1, 2, 1],
      [DAYS.second, 2, 1, 0, 1, 1, 1],
    ]);
    const second = await report(`from=${DAYS.second}&to=${DAYS.second}&group_by=partner`);
    expect(second.rows.map((r) => [r.partner_id, r.received])).toEqual(
      [
        [partners.a, 4],
        [partners.b, 4],
      ].sort(),
    );
    expect((await report('from=2026-11-12&to=2026-11-30')).totals).toMatchObject({ received: 0, accepted_share: null });
    expect((await manager.get(`/api/reports?from=${DAYS.second}&to=${DAYS.first}`)).status).toBe(422);
  });

  it('reads a whole month from its month documents with the same numbers as its days', async () => {
    for (const groupBy of ['partner', 'partner,country,source']) {
      const month = await report(`from=2026-11-01&to=2026-11-30&group_by=${groupBy}`);
      const days = await report(`${RANGE}&group_by=${groupBy}`);
      expect(month.rows).toEqual(days.rows);
      expect(month.totals).toEqual(EXPECTED_TOTALS);
    }
  });

  it('exports the same numbers as CSV, with formula-like cells neutralised', async () => {
    const json = await fullReport();
    const res = await fetch(`${app.url}/api/reports.csv?${RANGE}&group_by=partner,country,source,day`, {
      headers: { authorization: `Bearer ${app.config.managerTokens[0]}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = (await res.text())
      .trimEnd()
      .split('\r\n')
      .map((l) => l.split(','));
    const [header, ...rest] = lines as [string[], ...string[][]];
    const total = rest.pop() as string[];
    expect(header.slice(0, 6)).toEqual(['partner_id', 'country', 'source', 'day', 'received', 'accepted']);
    expect(rest).toHaveLength(json.rows.length);
    const numbers = (f: Figures) => FIGURES.map((c) => f[c]).map((v) => (v === null ? '' : String(v)));
    const column = (name: string) => header.indexOf(name);
    const pick = (line: string[]) => FIGURES.map((c) => line[column(c)]);
    json.rows.forEach((row, i) => {
      const line = rest[i] as string[];
      expect(line.slice(0, 4)).toEqual([
        row.partner_id,
        row.country ?? '',
        row.source === '=cmd' ? "'=cmd" : (row.source ?? ''),
        row.day,
      ]);
      expect(pick(line)).toEqual(numbers(row));
    });
    expect(total[0]).toBe('total');
    expect(pick(total)).toEqual(numbers(json.totals));
    expect(rest.some((l) => l[2] === "'=cmd")).toBe(true);
  });
});

describe('exactly once', () => {
  it('counts nothing again when every event is published again (a processor re-announcing after a crash)', async () => {
    const before = await fullReport();
    await publishLeadEvents(
      app.runtime,
      leads.flatMap((d) => eventsOf(d)),
    );
    await caughtUp();
    expect(await fullReport()).toEqual(before);
  });

  // Both groups from the start: every delta is published again, and every one the counter documents
  // took (their counts written, then their offsets committed) is read again.
  it('counts nothing again when a restarted processor reads every partition of both stages again from the start', async () => {
    const before = await fullReport();
    const { config } = app;
    await app.stop();
    const admin = bareKafka(config.kafka.brokers).admin();
    await admin.connect();
    try {
      for (const [group, topic] of [
        ['processor-reports', 'leads.events'],
        ['processor-reports', 'leads.intake.refusals'],
        ['processor-report-cells', 'reports.deltas'],
      ]) {
        await admin.resetOffsets({
          groupId: `${config.kafka.topicPrefix}${group}`,
          topic: `${config.kafka.topicPrefix}${topic}`,
          earliest: true,
        });
      }
    } finally {
      await admin.disconnect();
    }
    app = await startTestApp({}, config);
    manager = new ManagerClient(app.url);
    await caughtUp();
    expect(await fullReport()).toEqual(before);
    // It did read every message of both topics again.
    const read = (await app.runtime.metrics.getSingleMetric('lead_intake_report_messages_total')?.get())?.values ?? [];
    const counted = (topic: string) =>
      read.filter((v) => v.labels.topic === topic && v.labels.outcome === 'counted').reduce((a, v) => a + v.value, 0);
    const published = async (topic: string) =>
      (await app.runtime.admin.fetchTopicOffsets(topic)).reduce((a, p) => a + Number(p.high), 0);
    expect(counted('lead_events')).toBe(await published(app.runtime.topics.leadEvents));
    expect(counted('lead_events')).toBeGreaterThanOrEqual(leads.flatMap((d) => eventsOf(d)).length);
    expect(counted('intake_refusals')).toBe(SCENARIO_REFUSALS.length);
  }, 90000);
});

describe('the rebuild', () => {
  it('recomputes the same numbers from the stored leads, keeping the refusal counters', async () => {
    const before = await fullReport();
    const summary = await rebuildReportsOf(app.runtime);
    expect(summary.leads).toBe(SCENARIO_LEADS.filter((l) => !l.test).length);
    const docs = await app.runtime.mongo.db.collection<CellDoc>('report_cells').find({}).toArray();
    expect(summary.cell_documents_written).toBe(docs.filter((d) => Object.keys(cellsOf(d).lead).length > 0).length);
    expect(docs.some((d) => Object.keys(cellsOf(d).refusal).length > 0)).toBe(true); // refusal cells kept
    expect(docs.every((d) => Object.keys(d.o).length > 0)).toBe(true); // and every writer's offset
    expect(await fullReport()).toEqual(before);
    // The rebuilt report_leads fence later events as the projector's did.
    await publishLeadEvents(
      app.runtime,
      leads.flatMap((d) => eventsOf(d)),
    );
    await caughtUp();
    expect(await fullReport()).toEqual(before);
  });
});

describe('from a partner request to the report', () => {
  it("counts an accepted lead, its duplicate, a validation error and the agent reaching the lead, on the partner's today", async () => {
    const zone = 'Pacific/Kiritimati'; // +14:00: its today is rarely the UTC one
    const created = (
      await manager.post<{ id: string; api_key: string; hmac_secret: string }>('/api/affiliates', {
        name: 'Live',
        time_zone: zone,
      })
    ).body;
    const client = new PartnerClient(app.url, created);
    const lead = { phone: '+447911123999', country_code: 'DE', source: 'web.form' };
    const first = await client.submitLead({ ...lead, external_id: 'live-1' });
    expect(first.body.status).toBe('accepted');
    expect((await client.submitLead({ ...lead, external_id: 'live-2' })).status).toBe(409);
    expect((await client.submitLead({ country_code: 'DE', source: 'web.form', external_id: 'live-3' })).status).toBe(
      422,
    );
    const action: AgentAction = {
      action_id: randomUUID(),
      lead_id: first.body.id as string,
      agent_id: 'ag-x',
      status: 'contacted',
      occurred_at: new Date().toISOString(),
    };
    await produce(app.runtime, 'agentActions', [action], () => action.lead_id);
    const today = localTime(new Date(), zone).date;
    const row = await until(
      async () => {
        const body = await report(`from=${today}&to=${today}&affiliate_id=${created.id}&group_by=country`);
        const r = body.rows[0];
        return body.rows.length === 1 && r?.contacted === 1 && r.validation_errors === 1 ? r : null;
      },
      30000,
      'the live requests in the report',
    );
    expect(row).toMatchObject({
      country: 'DE',
      received: 3,
      accepted: 1,
      duplicates: 1,
      validation_errors: 1,
      rejected: 0,
      contacted: 1,
      contact_rate: 1,
    });
    // A request refused at validation gives its country, never its source (any text, each a cell).
    const bySource = (await report(`from=${today}&to=${today}&affiliate_id=${created.id}&group_by=source`)).rows;
    expect(
      bySource
        .map((r) => ({ source: r.source, received: r.received, validation_errors: r.validation_errors }))
        .sort((a, b) => String(a.source).localeCompare(String(b.source))),
    ).toEqual(
      [
        { source: null, received: 1, validation_errors: 1 },
        { source: 'web.form', received: 2, validation_errors: 0 },
      ].sort((a, b) => String(a.source).localeCompare(String(b.source))),
    );
  });
});

describe('the overview', () => {
  it('charts the last 14 days from the reports, the same numbers as the report per day', async () => {
    const overview = (
      await manager.get<{ days: Pick<Report, 'from' | 'to' | 'rows'>; charts: object }>('/api/overview')
    ).body;
    const today = new Date().toISOString().slice(0, 10);
    expect(overview.days.to).toBe(today);
    expect(overview.days.from).toBe(new Date(Date.now() - 13 * 86_400_000).toISOString().slice(0, 10));
    expect(overview.days.rows).toEqual((await report(`from=${overview.days.from}&to=${today}&group_by=day`)).rows);
    expect(overview.charts).toHaveProperty('leads');
  });
});
