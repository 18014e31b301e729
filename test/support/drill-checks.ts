import { readReport } from '../../src/manager/reports/report-reader';
import { deliveryId } from '../../src/shared/ids';
import { findByIds } from '../../src/shared/mongo/bulk';
import { CellStore, cellsCollection } from '../../src/shared/reports/cell-store';
import type { DeliveryDoc, LeadDoc } from '../../src/shared/mongo/documents';
import type { Runtime } from '../../src/shared/runtime';
import { expectOneFeedMessagePerChange, type FeedReport } from './assignment-feed';
import type { CallbackReceiver } from './callback-receiver';
import { drillEventOf } from './drill-partner';
import type { LeadRun } from './steady-load';
import { until } from './topic-probe';

export interface DrillReport {
  leads: number;
  events: number;
  callbacks: number;
  repeatedCallbacks: number;
  attempts: number;
  answers: Record<string, number>; // HTTP status (or "none") -> attempts
  // Attempts the records hold that got no answer (a timeout, a connection cut), by drill event: the
  // sender cannot know the partner got them, so each may be a repeat (at least once, spec 6.3).
  unanswered: ReadonlyMap<string, number>;
}

export interface NothingLostOptions {
  rt: Runtime; // any runtime on the drill's MongoDB
  partnerId: string;
  runs: readonly LeadRun[];
  receiver: CallbackReceiver;
  path: string; // the partner's callback path on the receiver
  history?: readonly string[]; // every lead's statuses once settled (default: new, assigned)
  timeoutMs?: number;
}

// The invariants every drill ends with, once the fault is over:
//  - no accepted lead lost, none accepted twice: every lead the load sent ended with 200 accepted,
//    each under its own lead id, and MongoDB holds exactly those leads, one per Idempotency-Key;
//  - no lead event lost: every lead's history is exactly `history` (no step missing or doubled),
//    fully published (outbox drained), and each of its events reached the dispatcher, which
//    made one delivery record per (event, partner);
//  - every delivery ends delivered, and the partner received each event with a valid signature
//    (a repeat is allowed: delivery is at least once);
//  - the reports' read model counted each lead once, received and accepted.
export async function expectNothingLost(opts: NothingLostOptions): Promise<DrillReport> {
  const { rt, partnerId, runs, receiver, path } = opts;
  const history = opts.history ?? ['new', 'assigned'];
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const { leads, deliveries } = rt.mongo.collections;

  const unfinished = runs.filter((r) => r.final?.status !== 200 || r.final.body?.status !== 'accepted');
  expect(
    unfinished.map((r) => ({
      key: r.key,
      attempts: r.attempts.map((a) => `${a.status ?? a.error} ${JSON.stringify(a.body ?? {})}`),
    })),
  ).toEqual([]);
  const idByKey = new Map(runs.map((r) => [r.key, r.final!.body!.id as string]));
  expect(new Set(idByKey.values()).size).toBe(runs.length);

  const settled = (l: LeadDoc) => l.history.length === history.length;
  let stored: LeadDoc[] = [];
  await until(
    async () => {
      stored = await leads.find({ partner_id: partnerId }).toArray();
      return stored.length >= runs.length && stored.every(settled);
    },
    timeoutMs,
    'every lead to settle with its events published',
  ).catch(() => undefined);
  expect(stored.length).toBe(runs.length);
  expect(Object.fromEntries(stored.map((l) => [l.idempotency_key, l._id]))).toEqual(Object.fromEntries(idByKey));
  for (const lead of stored) {
    expect({ id: lead._id, history: lead.history.map((h) => h.to) }).toEqual({ id: lead._id, history });
  }

  await expectCountedOnce(rt, partnerId, runs.length, timeoutMs);

  const eventIds = stored.flatMap((l) => l.history.map((_, i) => `${l._id}:${i}`));
  const ids = eventIds.map((e) => deliveryId(e, partnerId));
  let records: DeliveryDoc[] = [];
  await until(
    async () => {
      records = await deliveries.find({ partner_id: partnerId }).toArray();
      return records.length >= ids.length && records.every((d) => d.state === 'delivered');
    },
    timeoutMs,
    'every delivery to be delivered',
  ).catch(() => undefined);
  if (process.env.DRILL_REPORT) await reportMissing(opts, ids, eventIds, records);
  expect(records.map((d) => d._id).sort()).toEqual([...ids].sort());
  const stuck = records.filter((d) => d.state !== 'delivered');
  // With DRILL_REPORT, what a stuck delivery's lead left: its records and its block.
  if (stuck.length > 0 && process.env.DRILL_REPORT) {
    const blocks = await rt.mongo.collections.deliveryBlocks.find({}).toArray();
    const leadIds = new Set(stuck.map((d) => d.lead_id));
    const sameLead = records.filter((d) => leadIds.has(d.lead_id)).map(({ event: _e, ...d }) => d);
    process.stderr.write(
      `STUCK ${JSON.stringify(sameLead)}\nBLOCKS ${JSON.stringify(blocks.filter((b) => leadIds.has(b.lead_id)))}\n`,
    );
  }
  expect(stuck.map((d) => ({ id: d._id, state: d.state, error: d.last_error }))).toEqual([]);

  const got = receiver.at(path).filter((c) => c.signatureValid && c.headers['x-event'] === c.body.event);
  const received = new Set(got.map((c) => drillEventOf(c.body)));
  const expected = stored.flatMap((l) => l.history.map((h) => `${l._id}|${h.to}`));
  expect(expected.filter((e) => !received.has(e))).toEqual([]);

  const answers: Record<string, number> = {};
  for (const a of runs.flatMap((r) => r.attempts))
    answers[String(a.status ?? 'none')] = (answers[String(a.status ?? 'none')] ?? 0) + 1;
  const report: DrillReport = {
    leads: stored.length,
    events: eventIds.length,
    callbacks: got.length,
    repeatedCallbacks: got.length - received.size,
    attempts: runs.reduce((n, r) => n + r.attempts.length, 0),
    answers,
    unanswered: unansweredAttempts(records),
  };
  if (process.env.DRILL_REPORT)
    process.stderr.write(`drill report: ${JSON.stringify({ ...report, unanswered: report.unanswered.size })}\n`);
  return report;
}

function unansweredAttempts(records: readonly DeliveryDoc[]): Map<string, number> {
  const unanswered = new Map<string, number>();
  for (const d of records) {
    const n = d.attempts.filter((a) => a.http_status === null && a.error !== null).length;
    if (n > 0) unanswered.set(`${d.lead_id}|${d.event.our_status}`, n);
  }
  return unanswered;
}

// The assignment feed across the fault: every change of agent the store records for the drill's
// leads (each lead's assignment history: here the assignment at intake) has exactly one message on
// crm.lead-assignments by event_id; a repeat is allowed only as the same bytes under the same event_id.
export async function expectOneFeedMessagePerAssignment(rt: Runtime, runs: readonly LeadRun[]): Promise<FeedReport> {
  const ids = runs.flatMap((r) => (typeof r.final?.body?.id === 'string' ? [r.final.body.id] : []));
  const leads = [...(await findByIds(rt.mongo.collections.leads, ids)).values()];
  expect(leads.length).toBe(ids.length);
  const report = await expectOneFeedMessagePerChange(rt, leads);
  expect(report.changes).toBe(leads.length);
  if (process.env.DRILL_REPORT) process.stderr.write(`feed report: ${JSON.stringify(report)}\n`);
  return report;
}

// No answer of the drill may be a 5xx other than a retryable 503 with Retry-After (an outage is
// never a 500), nor a 4xx (every lead is valid and distinct).
export function expectOnlyRetryableFailures(runs: readonly LeadRun[]): void {
  const bad = runs
    .flatMap((r) => r.attempts)
    .filter(
      (a) =>
        a.status !== null &&
        a.status !== 200 &&
        !(a.status === 503 && a.retryAfter) &&
        !(a.status === 409 && a.body?.error === 'idempotency_key_in_use' && a.retryAfter),
    );
  expect(bad.map((a) => ({ status: a.status, body: a.body, retryAfter: a.retryAfter }))).toEqual([]);
}

// With DRILL_REPORT, what is known of a delivery with no record: its event, the lead's other
// records and block, and what the partner received of the lead.
async function reportMissing(
  opts: NothingLostOptions,
  ids: string[],
  eventIds: string[],
  records: DeliveryDoc[],
): Promise<void> {
  const have = new Set(records.map((d) => d._id));
  for (const [i, id] of ids.entries()) {
    if (have.has(id)) continue;
    const eventId = eventIds[i] as string;
    const leadId = eventId.slice(0, eventId.lastIndexOf(':'));
    const sameLead = records.filter((d) => d.lead_id === leadId).map(({ event: _e, ...d }) => d);
    const blocks = await opts.rt.mongo.collections.deliveryBlocks.find({ lead_id: leadId }).toArray();
    const got = opts.receiver
      .at(opts.path)
      .filter((c) => drillEventOf(c.body).startsWith(`${leadId}|`))
      .map((c) => ({ event: drillEventOf(c.body), at: c.at }));
    process.stderr.write(
      `MISSING ${id} (event ${eventId}): records ${JSON.stringify(sameLead)} blocks ${JSON.stringify(blocks)} received ${JSON.stringify(got)}\n`,
    );
  }
}

// The partner's report over yesterday and today (UTC, the drill partner's zone) once the projector
// caught up: every lead counted, none twice, however the fault moved the projector's partitions.
async function expectCountedOnce(rt: Runtime, partnerId: string, leads: number, timeoutMs: number): Promise<void> {
  const cells = new CellStore(cellsCollection(rt.mongo.db));
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  let counted = { received: 0, accepted: 0 };
  const read = async () => {
    const { totals } = await readReport(
      cells,
      { from: day(Date.now() - 86_400_000), to: day(Date.now()), affiliate_id: partnerId },
      new Date(),
    );
    counted = { received: Number(totals.received ?? 0), accepted: Number(totals.accepted ?? 0) };
    return counted.accepted >= leads;
  };
  await until(read, timeoutMs, 'the reports to count every lead').catch(() => undefined);
  await read();
  // A miss says whether the projector is behind (messages left to read) or lost counts (none left).
  const behind = counted.accepted === leads ? 0 : await reportsLag(rt);
  if (process.env.DRILL_REPORT && counted.accepted !== leads) await reportMissingCounts(rt, partnerId);
  expect({ ...counted, behind }).toEqual({ received: leads, accepted: leads, behind: 0 });
}

async function reportsLag(rt: Runtime): Promise<number> {
  const prefix = rt.config.kafka.topicPrefix;
  const stages: [string, string[]][] = [
    [`${prefix}processor-reports`, [rt.topics.leadEvents, rt.topics.intakeRefusals]],
    [`${prefix}processor-report-cells`, [rt.topics.reportDeltas]],
  ];
  let lag = 0;
  for (const [groupId, topics] of stages) {
    for (const topic of topics) {
      const [committed] = await rt.admin.fetchOffsets({ groupId, topics: [topic] });
      for (const end of await rt.admin.fetchTopicOffsets(topic)) {
        const at = Number(committed?.partitions.find((p) => p.partition === end.partition)?.offset ?? -1);
        lag += Number(end.high) - Math.max(at, 0);
      }
    }
  }
  return lag;
}

// With DRILL_REPORT: whether the leads the reports miss were never projected (no report_leads state)
// or projected without their counts reaching the counter documents.
async function reportMissingCounts(rt: Runtime, partnerId: string): Promise<void> {
  const ids = (
    await rt.mongo.collections.leads.find({ partner_id: partnerId }, { projection: { _id: 1 } }).toArray()
  ).map((l) => l._id);
  const states = await rt.mongo.db
    .collection<{ _id: string; through: number }>('report_leads')
    .find({ _id: { $in: ids } })
    .toArray();
  const known = new Set(states.map((s) => s._id));
  const unprojected = ids.filter((id) => !known.has(id));
  process.stderr.write(
    `REPORTS leads ${ids.length}, states ${states.length}, unprojected ${JSON.stringify(unprojected.slice(0, 20))}, through<0 ${states.filter((s) => s.through < 0).length}\n`,
  );
}
