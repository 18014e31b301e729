import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Table } from './context';
import type { ProfileSummary } from './cpuprofile';
import type { RoleMemory } from './roles';

const fmt = (v: string | number | null | undefined): string => {
  if (v === null || v === undefined || (typeof v === 'number' && Number.isNaN(v))) return '-';
  return String(v);
};

export function renderTable(t: Table): string {
  const cells = [t.columns, ...t.rows.map((r) => r.map(fmt))];
  const widths = t.columns.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  const out = [
    `\n${t.title}`,
    line(t.columns),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...cells.slice(1).map(line),
  ];
  if (t.note) out.push(`  (${t.note})`);
  return out.join('\n');
}

export function writeJson(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

export function profileTables(profiles: Record<string, ProfileSummary | null>): Table[] {
  return Object.entries(profiles).flatMap(([role, p]) =>
    p
      ? [
          {
            title: `CPU profile of ${role} during the measured load: self time, % of busy time (idle ${p.idlePct}% of ${p.totalMs} ms)`,
            columns: ['function', 'where', 'self %'],
            rows: p.topFunctions.slice(0, 12).map((f) => [f.fn, f.where, f.selfPct]),
            note: `by module: ${p.byModule
              .slice(0, 8)
              .map((m) => `${m.module} ${m.selfPct}%`)
              .join(', ')}`,
          },
        ]
      : [],
  );
}

export function memoryTable(memory: Record<string, RoleMemory>): Table {
  return {
    title: 'Memory of each role (MB)',
    columns: ['role', 'peak RSS (VmHWM)', 'max sampled RSS', 'RSS when ready', 'max sampled RssAnon'],
    rows: Object.entries(memory).map(([role, m]) => [
      role,
      m.peakRssMb,
      m.sampledMaxRssMb,
      m.readyRssMb,
      m.sampledMaxAnonMb,
    ]),
    note: 'RssAnon is private memory (JS heap, buffers); the rest of RSS is mapped files, mostly the node binary (~45 MB)',
  };
}

// Every numeric leaf of a result file, by path ("scenarios.pipeline.data.steps[open 50/s].load.acceptedPerS").
function flatten(value: unknown, path: string, out: Map<string, number>): void {
  if (typeof value === 'number') {
    out.set(path, value);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      const label = v && typeof v === 'object' && 'label' in v ? String((v as { label: unknown }).label) : String(i);
      flatten(v, `${path}[${label}]`, out);
    });
    return;
  }
  if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) flatten(v, path ? `${path}.${k}` : k, out);
}

// The figures that matter for a comparison (not every histogram bucket or CPU column).
const KEY =
  /(acceptedPerS|latencyMs\.(p50|p95|p99)|perS|deliveriesPerS|lateness.*\.(p50|p99|max)|peakRssMb|opsPerS|leadsPerS|targets\..*measured)$/;

export function compare(a: string, b: string, all: boolean): string {
  const load = (f: string) => JSON.parse(readFileSync(f, 'utf8')) as Record<string, unknown>;
  const [ja, jb] = [load(a), load(b)];
  const fa = new Map<string, number>();
  const fb = new Map<string, number>();
  flatten(ja.scenarios, '', fa);
  flatten(jb.scenarios, '', fb);
  flatten({ targets: ja.targets }, '', fa);
  flatten({ targets: jb.targets }, '', fb);
  const keys = [...new Set([...fa.keys(), ...fb.keys()])]
    .filter((k) => all || (KEY.test(k) && !k.includes('.windows[') && !k.includes('.timeline')))
    .filter((k) => !k.includes('.profiles.'));
  const rows = keys.map((k) => {
    const x = fa.get(k);
    const y = fb.get(k);
    const delta = x !== undefined && y !== undefined && x !== 0 ? `${(((y - x) / Math.abs(x)) * 100).toFixed(1)}%` : '';
    return [k, x ?? null, y ?? null, delta];
  });
  const meta = (j: Record<string, unknown>) => {
    const m = j.meta as Record<string, unknown> | undefined;
    const scenarios = Object.values(
      (j.scenarios ?? {}) as Record<
        string,
        { data?: { servers?: Record<string, { cmd?: string; startedAt?: string }> } }
      >,
    );
    const db = scenarios.find((x) => x.data?.servers)?.data?.servers?.['mongo-wire'];
    return (
      `${String(m?.startedAt ?? '?')} git ${String(m?.git ?? '')} MONGO_URL=${String(m?.mongoUrl ?? '?')}` +
      (db?.cmd ? `\n   mongo-wire server: ${db.cmd.slice(0, 160)} (started ${db.startedAt})` : '')
    );
  };
  return [
    `A: ${a}\n   ${meta(ja)}`,
    `B: ${b}\n   ${meta(jb)}`,
    renderTable({ title: 'Comparison (B against A)', columns: ['figure', 'A', 'B', 'B vs A'], rows }),
  ].join('\n');
}
