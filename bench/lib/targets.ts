import { cpus } from 'node:os';
import type { ScenarioResult } from './context';
import { ourShare } from './cpu-per-lead';

export interface TargetCheck {
  name: string;
  goal: string;
  measured: string;
  met: boolean | null; // null: not measured in this run
  cappedBy: string;
}

interface StepLike {
  label: string;
  saturated: boolean;
  load: { acceptedPerS: number; latencyMs: { p99: number } };
  cpuPerLead?: { service: number | null; byProcess?: Record<string, number> };
}

interface IdleWindowLike {
  layout: string;
  cpu: { perProcess: Record<string, number> };
}
const OUR_ROLES = ['ingress', 'processor', 'dispatcher', 'all'];
// CPU ms a lead in our own processes (every instance of each role), without the servers.
const ourCpuPerLead = (s: StepLike | undefined): number | null => {
  const by = s?.cpuPerLead?.byProcess;
  if (!by) return null;
  return Math.round(OUR_ROLES.reduce((a, role) => a + (by[role] ?? 0), 0) * 100) / 100;
};

const steps = (r: ScenarioResult | undefined): StepLike[] => (r?.data.steps as StepLike[] | undefined) ?? [];
const bestAccepted = (r: ScenarioResult | undefined): number | null => {
  // Sustained: closed loop, or an open-loop step that kept up.
  const ok = steps(r)
    .filter((s) => s.label.startsWith('closed') || !s.saturated)
    .map((s) => s.load.acceptedPerS);
  return ok.length > 0 ? Math.max(...ok) : null;
};
const at = (r: ScenarioResult | undefined, label: string): StepLike | undefined =>
  steps(r).find((s) => s.label === label);

// The targets of the issue, checked against this run, each with the component figure that caps it
// (from the isolating scenarios: the database pattern, the ingress with a stand-in processor, the
// HTTP path alone).
export function checkTargets(r: Partial<Record<string, ScenarioResult>>): TargetCheck[] {
  const out: TargetCheck[] = [];
  const mongo = r.mongo?.data as { processor?: { perS: number }; dispatcher?: { perS: number } } | undefined;
  const ingressAlone = bestAccepted(r.ingress);
  const pipelineBest = bestAccepted(r.pipeline);
  const ceilings = (parts: [string, number | null | undefined][]) =>
    parts
      .filter(([, v]) => v !== null && v !== undefined)
      .sort((a, b) => (a[1] as number) - (b[1] as number))
      .map(([k, v]) => `${k} ${v}/s`)
      .join(' < ');

  out.push({
    name: 'accepted leads/s sustained',
    goal: '>= 500',
    measured: pipelineBest === null ? 'not run' : `${pipelineBest}/s`,
    met: pipelineBest === null ? null : pipelineBest >= 500,
    cappedBy: ceilings([
      ['db: processor pattern', mongo?.processor?.perS],
      ['ingress+kafka (stand-in)', ingressAlone],
      ['pipeline', pipelineBest],
    ]),
  });

  const s200 = at(r.pipeline, 'open 200/s');
  const saturatedAt = steps(r.pipeline).find((s) => s.saturated && s.label.startsWith('open'));
  const i200 = at(r.ingress, 'open 200/s');
  out.push({
    name: 'p99 intake latency at 200/s',
    goal: '< 100 ms',
    measured: s200
      ? `${s200.load.latencyMs.p99} ms`
      : r.pipeline
        ? `not offered: saturated at ${saturatedAt?.label ?? '?'}`
        : 'not run',
    met: s200 ? s200.load.latencyMs.p99 < 100 && !s200.saturated : r.pipeline ? false : null,
    cappedBy: i200 ? `ingress alone at 200/s: p99 ${i200.load.latencyMs.p99} ms` : '',
  });

  const instances = (r.pipeline?.data.instances as number | undefined) ?? 1;
  out.push({
    name: 'scale-out (--instances N)',
    goal: 'leads/s per added core, measured where 16+ cores exist',
    measured:
      pipelineBest === null
        ? 'not run'
        : `${pipelineBest}/s with ${instances} instance${instances > 1 ? 's' : ''} of each role on ${cpus().length} cores`,
    met: null, // a comparison of runs (--compare), not one run's figure
    cappedBy: '',
  });

  const cpu200 = s200?.cpuPerLead?.service ?? null;
  out.push({
    name: 'CPU ms per accepted lead at 200/s',
    goal: '<= 4 ms',
    measured: cpu200 === null ? (r.pipeline ? 'not measured' : 'not run') : `${cpu200} ms`,
    met: cpu200 === null ? null : cpu200 <= 4,
    cappedBy: '',
  });

  const ours200 = ourCpuPerLead(s200);
  out.push({
    name: 'our processes CPU ms per lead at 200/s',
    goal: '<= 2.5 ms',
    measured: ours200 === null ? (r.pipeline ? 'not measured' : 'not run') : `${ours200} ms`,
    met: ours200 === null ? null : ours200 <= 2.5,
    cappedBy: '',
  });

  // At rest: our processes together, roles apart and all-in-one.
  const idle = (r.idle?.data.windows as IdleWindowLike[] | undefined) ?? [];
  const idlePct = idle.map((w) => ourShare(w.cpu.perProcess));
  out.push({
    name: 'our processes at rest, % of a core',
    goal: '< 2%',
    measured: idle.length === 0 ? 'not run' : idle.map((w, i) => `${w.layout} ${idlePct[i]}%`).join(', '),
    met: idle.length === 0 ? null : idlePct.every((p) => p < 2),
    cappedBy: '',
  });

  // The soak: the all-in-one app with callbacks on, minute by minute.
  const minutes =
    (r.soak?.data.steps as
      | (StepLike & { load: { sent: number; byOutcome: Record<string, number> }; rssMb: Record<string, number> })[]
      | undefined) ?? [];
  const okShare = (m: (typeof minutes)[number]) =>
    ((m.load.byOutcome.accepted ?? 0) + (m.load.byOutcome.duplicate ?? 0)) / Math.max(1, m.load.sent);
  const rss = minutes.map((m) => m.rssMb.all ?? 0);
  out.push({
    name: 'soak, all-in-one with callbacks',
    goal: 'each minute >= 99.9% 200, p99 < 100 ms, memory flat',
    measured:
      minutes.length === 0
        ? 'not run'
        : `${minutes.length} min: worst ${Math.min(...minutes.map((m) => Math.round(okShare(m) * 1000) / 10))}% 200, worst p99 ${Math.max(...minutes.map((m) => m.load.latencyMs.p99))} ms, RSS ${rss[0]} -> ${rss[rss.length - 1]} MB`,
    // Flat: the last minute's RSS within 10% of the first's.
    met:
      minutes.length === 0
        ? null
        : minutes.every((m) => okShare(m) >= 0.999 && m.load.latencyMs.p99 < 100) &&
          (rss[rss.length - 1] ?? 0) <= (rss[0] ?? 0) * 1.1,
    cappedBy: '',
  });

  const d = r.dispatcher?.data as
    | {
        throughput?: { deliveriesPerS: number };
        retries?: { early: number; latenessMs: { max: number; p99: number }; retryAttemptsMeasured: number };
      }
    | undefined;
  const http = (r['http-path']?.data as { runs?: { perS: number }[] } | undefined)?.runs;
  const httpBest = http && http.length > 0 ? Math.max(...http.map((x) => x.perS)) : null;
  out.push({
    name: 'callback deliveries/s',
    goal: '>= 1000',
    measured: d?.throughput ? `${d.throughput.deliveriesPerS}/s` : 'not run',
    met: d?.throughput ? d.throughput.deliveriesPerS >= 1000 : null,
    cappedBy: ceilings([
      ['db: dispatcher pattern', mongo?.dispatcher?.perS],
      ['http path alone', httpBest],
      ['dispatcher', d?.throughput?.deliveriesPerS],
    ]),
  });
  out.push({
    name: 'retry lateness',
    goal: 'never early, <= 1 s late',
    measured: d?.retries
      ? `${d.retries.retryAttemptsMeasured} retries: ${d.retries.early} early, max ${d.retries.latenessMs.max} ms late`
      : 'not run',
    met: d?.retries
      ? d.retries.early === 0 && d.retries.latenessMs.max <= 1000 && d.retries.retryAttemptsMeasured > 0
      : null,
    cappedBy: '',
  });

  // The same pipeline with leads already stored: what the stored data costs.
  const storedBest = bestAccepted(r.stored);
  const stored = r.stored?.data as { stored?: { leads: number }; status?: { latencyMs: { p99: number } } } | undefined;
  const emptyStatus = (r.pipeline?.data as { status?: { latencyMs: { p99: number } } } | undefined)?.status;
  const leadsStored = stored?.stored?.leads ?? 0;
  out.push({
    name: `accepted leads/s with ${leadsStored} leads stored`,
    goal: 'within 20% of the empty store',
    measured: storedBest === null || pipelineBest === null ? 'not run' : `${storedBest}/s against ${pipelineBest}/s`,
    met: storedBest === null || pipelineBest === null ? null : storedBest >= 0.8 * pipelineBest,
    cappedBy: '',
  });
  out.push({
    name: `status lookup p99 with ${leadsStored} leads stored`,
    goal: '< 20 ms',
    measured: stored?.status
      ? `${stored.status.latencyMs.p99} ms (empty store: ${emptyStatus?.latencyMs.p99 ?? '?'} ms)`
      : 'not run',
    met: stored?.status ? stored.status.latencyMs.p99 < 20 : null,
    cappedBy: '',
  });

  const peaks: Record<string, number> = {};
  for (const res of Object.values(r)) {
    const mem = res?.data.memory as Record<string, { peakRssMb: number }> | undefined;
    for (const [role, m] of Object.entries(mem ?? {})) peaks[role] = Math.max(peaks[role] ?? 0, m.peakRssMb);
  }
  const roles = Object.entries(peaks);
  out.push({
    name: 'peak RSS per role',
    goal: '< 200 MB each',
    measured: roles.length > 0 ? roles.map(([k, v]) => `${k} ${v} MB`).join(', ') : 'not run',
    met: roles.length > 0 ? roles.every(([, v]) => v < 200) : null,
    cappedBy: '',
  });
  return out;
}
