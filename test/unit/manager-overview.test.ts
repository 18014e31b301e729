import { Counter, Registry } from 'prom-client';
import { keepWindow, minuteBuckets, type CounterSnapshot } from '../../src/manager/overview/counter-minutes';
import { OverviewSampler } from '../../src/manager/overview/overview-sampler';

const HOUR = 3_600_000;
const at = (minute: number, totals: Record<string, number>): CounterSnapshot => ({ at: minute * 60_000, totals });

describe('minuteBuckets', () => {
  it('gives what each counter gained between snapshots, and in the minute in progress', () => {
    const buckets = minuteBuckets([at(0, { accepted: 2 }), at(1, { accepted: 5, duplicate: 1 })], at(1.5, { accepted: 6, duplicate: 1 }), HOUR);
    expect(buckets.map((b) => b.counts)).toEqual([{ accepted: 3, duplicate: 1 }, { accepted: 1 }]);
    expect(buckets[0]).toMatchObject({ start: new Date(0).toISOString(), end: new Date(60_000).toISOString() });
  });

  it('reads a total that went down as a restart: the new value is what happened since', () => {
    expect(minuteBuckets([at(0, { accepted: 40 })], at(1, { accepted: 3 }), HOUR)[0]!.counts).toEqual({ accepted: 3 });
  });

  it('leaves out minutes that ended before the window', () => {
    const buckets = minuteBuckets([at(0, { a: 1 }), at(1, { a: 2 }), at(61, { a: 3 })], at(62, { a: 4 }), HOUR);
    expect(buckets.map((b) => b.start)).toEqual([new Date(60_000).toISOString(), new Date(61 * 60_000).toISOString()]);
  });
});

describe('keepWindow', () => {
  it('keeps the snapshots inside the window and the one it starts from', () => {
    const snaps = [at(0, {}), at(1, {}), at(2, {}), at(70, {})];
    expect(keepWindow(snaps, 70 * 60_000, HOUR).map((s) => s.at / 60_000)).toEqual([2, 70]);
    expect(keepWindow([at(0, {})], 200 * 60_000, HOUR)).toHaveLength(1);
  });
});

describe('OverviewSampler', () => {
  it("sums this process's intake and callback counters by outcome, since its first snapshot", async () => {
    const registry = new Registry();
    const requests = new Counter({ name: 'lead_intake_requests_total', help: 'h', labelNames: ['endpoint', 'outcome', 'partner_id'], registers: [registry] });
    requests.inc({ endpoint: 'intake', outcome: 'accepted', partner_id: 'pa-1' }, 5); // before the first snapshot
    let now = 0;
    const sampler = new OverviewSampler(registry, () => now);
    await sampler.start();
    sampler.stop();
    now = 30_000;
    requests.inc({ endpoint: 'intake', outcome: 'accepted', partner_id: 'pa-1' }, 2);
    requests.inc({ endpoint: 'intake', outcome: 'accepted', partner_id: 'pa-2' });
    requests.inc({ endpoint: 'intake', outcome: 'duplicate', partner_id: 'pa-2' });
    requests.inc({ endpoint: 'status', outcome: 'found', partner_id: 'pa-2' }); // status lookups are not leads
    const overview = await sampler.overview();
    expect(overview.charts.leads.minutes.map((m) => m.counts)).toEqual([{ accepted: 3, duplicate: 1 }]);
    expect(overview.charts.callbacks).toEqual({ metric: 'lead_intake_callback_deliveries_total', minutes: [{ start: expect.any(String), end: expect.any(String), counts: {} }] });
  });
});
