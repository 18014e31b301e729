import {
  applyReport,
  emptyHealth,
  healthView,
  paused,
  resumed,
  shouldPause,
} from '../../src/dispatcher/endpoint-health';
import { EndpointHealthTracker } from '../../src/dispatcher/endpoint-health-tracker';
import { ParkedLeads } from '../../src/dispatcher/lead-owner/parked-leads';
import type { EndpointHealthReport } from '../../src/shared/schemas';

const T0 = Date.parse('2026-11-23T10:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000);
const iso = (s: number) => at(s).toISOString();
const rule = { pauseAfterMs: 60_000, minFailures: 3 };

function report(over: Partial<EndpointHealthReport>): EndpointHealthReport {
  return {
    ok: 0,
    failed: 0,
    trailing_failures: 0,
    trailing_since: null,
    last_success_at: null,
    last_failure_at: null,
    gone_at: null,
    held: {},
    ...over,
  };
}

describe('endpoint health tracker (one dispatcher, in memory)', () => {
  it('counts successes and failures per partner, the failures after the last success, and 410 as gone', () => {
    const t = new EndpointHealthTracker();
    t.record('pa-1', 'retriable', 500, T0);
    t.record('pa-1', 'delivered', 200, T0 + 1000);
    t.record('pa-1', 'permanent', 410, T0 + 2000);
    t.record('pa-1', 'retriable', null, T0 + 3000);
    t.record('pa-2', 'unsendable', null, T0); // our payload, not their endpoint
    const reports = t.drain(new Map());
    expect([...reports.keys()]).toEqual(['pa-1']);
    expect(reports.get('pa-1')).toEqual(
      report({
        ok: 1,
        failed: 3,
        trailing_failures: 2,
        trailing_since: iso(2),
        last_success_at: iso(1),
        last_failure_at: iso(3),
        gone_at: iso(2),
      }),
    );
    expect(t.drain(new Map()).size).toBe(0); // counts start again
  });

  it('reports held counts when they change, zeros once they are gone', () => {
    const t = new EndpointHealthTracker();
    expect(t.drain(new Map([['pa-1', { 2: 3 }]])).get('pa-1')?.held).toEqual({ 2: 3 });
    expect(t.drain(new Map([['pa-1', { 2: 3 }]])).size).toBe(0);
    expect(t.drain(new Map()).get('pa-1')?.held).toEqual({ 2: 0 });
  });

  it('puts an unsent report back under what was seen since, so the next report carries it', async () => {
    const t = new EndpointHealthTracker();
    const held = new Map([['pa-1', { 2: 3 }]]);
    const away = new Error('broker away');
    t.record('pa-1', 'delivered', 200, T0);
    t.record('pa-1', 'permanent', 410, T0 + 1000);
    t.record('pa-2', 'retriable', 500, T0 + 1000);
    const seenWhileSending = async () => {
      t.record('pa-1', 'retriable', 500, T0 + 2000);
      t.record('pa-2', 'delivered', 200, T0 + 3000);
      throw away;
    };
    await expect(t.report(held, seenWhileSending)).rejects.toBe(away);
    let reports = new Map<string, EndpointHealthReport>();
    const keep = async (sent: Map<string, EndpointHealthReport>) => {
      reports = sent;
      throw away;
    };
    await expect(t.report(held, keep)).rejects.toBe(away);
    expect(reports.get('pa-1')).toEqual(
      report({
        ok: 1,
        failed: 2,
        trailing_failures: 2,
        trailing_since: iso(1),
        last_success_at: iso(0),
        last_failure_at: iso(2),
        gone_at: iso(1),
        held: { 2: 3 },
      }),
    );
    expect(reports.get('pa-2')).toEqual(report({ ok: 1, failed: 1, last_success_at: iso(3), last_failure_at: iso(1) }));
    expect(t.drain(held).get('pa-1')).toMatchObject({ ok: 1, failed: 2, held: { 2: 3 } });
  });
});

describe('endpoint health record (every dispatcher, summed by the keeper)', () => {
  it('adds failure streaks across reports; a newer success resets the streak to its own trailing failures', () => {
    let doc = emptyHealth('pa-1', at(0));
    doc = applyReport(
      doc,
      report({ failed: 2, trailing_failures: 2, trailing_since: iso(0), last_failure_at: iso(5) }),
      at(5),
    );
    doc = applyReport(
      doc,
      report({ failed: 1, trailing_failures: 1, trailing_since: iso(3), last_failure_at: iso(6) }),
      at(6),
    );
    expect(doc).toMatchObject({ consecutive_failures: 3, failing_since: at(0), last_failure_at: at(6) });
    doc = applyReport(
      doc,
      report({
        ok: 1,
        failed: 1,
        trailing_failures: 1,
        trailing_since: iso(8),
        last_success_at: iso(7),
        last_failure_at: iso(8),
      }),
      at(8),
    );
    expect(doc).toMatchObject({ consecutive_failures: 1, failing_since: at(8), last_success_at: at(7) });
    // A late report with an older success does not reset: its trailing failures add up.
    doc = applyReport(
      doc,
      report({
        ok: 1,
        failed: 2,
        trailing_failures: 2,
        trailing_since: iso(9),
        last_success_at: iso(4),
        last_failure_at: iso(10),
      }),
      at(10),
    );
    expect(doc).toMatchObject({ consecutive_failures: 3, failing_since: at(8), last_success_at: at(7) });
  });

  it('flags the endpoint gone on a 410 until a later success', () => {
    let doc = applyReport(
      emptyHealth('pa-1', at(0)),
      report({ failed: 1, trailing_failures: 1, trailing_since: iso(1), last_failure_at: iso(1), gone_at: iso(1) }),
      at(1),
    );
    expect(healthView(doc, at(1).getTime()).gone).toBe(true);
    doc = applyReport(doc, report({ ok: 1, last_success_at: iso(2) }), at(2));
    expect(healthView(doc, at(2).getTime()).gone).toBe(false);
  });

  it('pauses only after failures spanning pauseAfterMs, at least minFailures of them, with no success between', () => {
    const failing = (count: number, spanS: number) => ({
      ...emptyHealth('pa-1', at(0)),
      consecutive_failures: count,
      failing_since: at(0),
      last_failure_at: at(spanS),
    });
    expect(shouldPause(failing(3, 60), rule)).toBe(true);
    expect(shouldPause(failing(3, 59), rule)).toBe(false);
    expect(shouldPause(failing(2, 600), rule)).toBe(false);
    expect(shouldPause(paused(failing(3, 60), at(61)), rule)).toBe(false); // already paused
    const back = resumed(paused(failing(3, 60), at(61)), at(70));
    expect(back).toMatchObject({
      state: 'active',
      consecutive_failures: 0,
      failing_since: null,
      paused_at: at(61),
      resumed_at: at(70),
    });
    expect(shouldPause(back, rule)).toBe(false);
  });

  it('shows a success rate over the last 24 hours and the held callbacks of every partition', () => {
    let doc = applyReport(emptyHealth('pa-1', at(0)), report({ ok: 3, failed: 1, held: { 0: 2 } }), at(0));
    doc = applyReport(doc, report({ ok: 0, failed: 4, held: { 3: 1 } }), at(3600));
    expect(healthView(doc, at(3600).getTime())).toMatchObject({
      success_rate: 0.375,
      attempts_24h: 8,
      held: 3,
      state: 'active',
    });
    expect(healthView(doc, at(24.5 * 3600).getTime())).toMatchObject({ success_rate: 0, attempts_24h: 4 });
    expect(healthView(emptyHealth('pa-2', at(0)), T0)).toMatchObject({
      success_rate: null,
      attempts_24h: 0,
      held: 0,
      gone: false,
    });
  });
});

describe('parked leads', () => {
  it("gives a partner's leads back in the order they were held, and counts held callbacks by partition", () => {
    const parked = new ParkedLeads();
    parked.add('pa-1', 'pa-1:le-2', 4);
    parked.add('pa-1', 'pa-1:le-1', 1);
    parked.add('pa-2', 'pa-2:le-3', 1);
    expect(parked.counts((key) => (key === 'pa-1:le-2' ? 2 : 0))).toEqual(
      new Map([
        ['pa-1', { 4: 3, 1: 1 }],
        ['pa-2', { 1: 1 }],
      ]),
    );
    parked.add('pa-1', 'pa-1:le-4', 2);
    expect(parked.take('pa-1', 1)).toEqual([{ key: 'pa-1:le-2', partition: 4 }]);
    expect(parked.take('pa-1', 5)).toEqual([
      { key: 'pa-1:le-1', partition: 1 },
      { key: 'pa-1:le-4', partition: 2 },
    ]);
    expect(parked.take('pa-1', 1)).toEqual([]);
    expect(parked.take('pa-2', 1)).toEqual([{ key: 'pa-2:le-3', partition: 1 }]);
  });
});
