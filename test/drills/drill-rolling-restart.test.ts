import { DedupClaims } from '../../src/processor/dedup-claims';
import type { DedupClaimDoc } from '../../src/shared/mongo/documents';
import { decisionId } from '../../src/shared/store/intake-decisions';
import { expectOneFeedMessagePerAssignment } from '../support/drill-checks';
import { drillPartner } from '../support/drill-partner';
import { SteadyLoad } from '../support/steady-load';
import { until } from '../support/topic-probe';
import { expectRepeatsOnlyAround, outOfOrder, repeatedEvents, rollingDrill } from '../support/rolling-drill';
import { servicesOf } from '../support/manager-services';

// A rolling deploy: two of each role, each dispatcher and each processor stopped gracefully
// (SIGTERM) and replaced in turn under steady load, while the partner refuses the first attempt of
// about a third of the callbacks. Every stop and every start moves partitions between live
// instances. A graceful hand-over loses nothing and repeats nothing: every lead accepted once,
// every callback delivered, none received more often than the receiver's refusals explain, and no
// lead's callbacks out of event order, and one assignment feed message per assignment. Then a crash (kill -9) of one dispatcher while the other runs.
const drill = rollingDrill();

it('hands partitions over with no repeat and no reordering through a rolling restart', async () => {
  const steps = [
    () => drill.replace('dispatcher', 0, 'SIGTERM'),
    () => drill.replace('dispatcher', 1, 'SIGTERM'),
    () => drill.replace('processor', 0, 'SIGTERM'),
    () => drill.replace('processor', 1, 'SIGTERM'),
    () => drill.replace('dispatcher', 0, 'SIGTERM'),
    () => drill.replace('dispatcher', 1, 'SIGTERM'),
  ];
  const { report, got, runs } = await drill.underLoad(steps);
  expect([...repeatedEvents(got, report.unanswered).keys()]).toEqual([]);
  expect(outOfOrder(got)).toEqual([]);
  expect(report.events).toBeGreaterThan(60);
  await expectOneFeedMessagePerAssignment(drill.app.runtime, runs);
}, 600_000);

// After kill -9 an attempt whose answer died with the process is sent again (docs/delivery-guarantees.md: at most the
// attempts the killed dispatcher had under way or not yet recorded): every repeat is of an event
// received within one callback timeout (plus the record's write) of the kill. Still in order.
it('repeats after kill -9 only what the killed dispatcher had under way, in event order', async () => {
  let killedAt = 0;
  const { got, report } = await drill.underLoad([
    async () => {
      killedAt = Date.now();
      await drill.replace('dispatcher', 0, 'SIGKILL');
    },
  ]);
  // Within a callback timeout of the kill on either side: a request written before the signal may
  // reach the partner just after it (ci41 failed on one counted from the signal on).
  expectRepeatsOnlyAround(got, killedAt, report);
}, 300_000);

// A manager blocks the drill's country while a processor is killed (kill -9) under load: the chunks
// it had under way are decided again by the other one under the new rule. Every lead ends accepted
// (before the change) or rejected (after it), no partner is left retrying on 503, and every dedup
// claim and external-id ref of the partner names a lead that exists: an accepted one for a claim.
it('keeps claims and refs consistent when a rule changes while chunks are decided again', async () => {
  const { app, receiver } = drill;
  const partner = await drillPartner(app.runtime, receiver, 'Rules drill');
  const load = new SteadyLoad({ targets: () => [app.url], creds: partner.creds, perSecond: 8 }).start();
  await until(async () => (load.runs.filter((r) => r.final).length >= 20 ? true : null), 60_000, 'some leads decided');
  await Promise.all([
    servicesOf(app.runtime).partners.update(partner.id, { blocked_countries: ['GB'] }),
    drill.replace('processor', 0, 'SIGKILL'),
  ]);
  await until(
    async () => (load.runs.filter((r) => r.final?.status === 422).length >= 10 ? true : null),
    90_000,
    'leads rejected under the new rule',
  );
  await load.stop();
  const answers = load.runs.map((r) => `${r.final?.status} ${String(r.final?.body?.status)}`);
  expect(answers.filter((a) => a !== '200 accepted' && a !== '422 rejected')).toEqual([]);

  const { leads, leadRefs } = app.runtime.mongo.collections;
  const stored = new Map((await leads.find({ partner_id: partner.id }).toArray()).map((l) => [l._id, l]));
  const owners = new Set(load.runs.map((r) => decisionId(partner.id, r.key)));
  const refs = (await leadRefs.find({}).toArray()).filter((r) => owners.has(r.owner));
  expect(refs.filter((r) => !stored.has(r.lead_id)).map((r) => r._id)).toEqual([]);
  const claims = await app.runtime.mongo.db
    .collection<DedupClaimDoc>(new DedupClaims(app.runtime.mongo.db).collectionAt(new Date()).collectionName)
    .find({})
    .toArray();
  const ours = claims.filter((c) => owners.has(c.owner));
  expect(
    ours
      .filter((c) => stored.get(c.lead_id)?.status === undefined || stored.get(c.lead_id)?.status === 'rejected')
      .map((c) => c._id),
  ).toEqual([]);
  expect(ours.length).toBeGreaterThan(0);
}, 300_000);
