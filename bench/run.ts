import { execSync } from 'node:child_process';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { buildForBench, ROOT } from './lib/build';
import { makeContext, type Options, type ScenarioResult } from './lib/context';
import { servicesEnv } from './lib/env';
import { PERF_NODE_OPTIONS, PerfRecorder } from './lib/perf-record';
import { load1 } from './lib/proc';
import { compare, renderTable, writeJson } from './lib/report';
import { checkTargets } from './lib/targets';
import { dispatcherScenario } from './scenarios/dispatcher';
import { httpPathScenario } from './scenarios/http-path';
import { intakeScenario } from './scenarios/intake';
import { mongoScenario } from './scenarios/mongo';
import { viewsScenario } from './scenarios/views';
import { managerViewsScenario } from './scenarios/manager-views';
import { managerAccessScenario } from './scenarios/manager-access';
import { portalScenario } from './scenarios/portal';
import { idleScenario } from './scenarios/idle';

const SCENARIOS = [
  'mongo',
  'views',
  'manager-views',
  'portal',
  'manager-access',
  'http-path',
  'ingress',
  'dispatcher',
  'pipeline',
  'stored',
  'soak',
  'idle',
] as const;
type ScenarioName = (typeof SCENARIOS)[number];

const USAGE = `usage: npm run bench -- [--quick] [--only a,b] [--profile | --profile-status] [--perf] [--log-level L] [--partners N]
                          [--duplicates 0.1] [--ingress-rates 100,200,500] [--pipeline-rates 5,10,20,50,100,200]
                          [--step-seconds S] [--stored N] [--views N] [--soak-minutes N] [--soak-rate R] [--backlog N] [--backlog-seconds S] [--idle-seconds S] [--keep-seed FILE] [--instances N] [--node-options "--flag ..."] [--role-env K=V,...] [--out file.json]
       npm run bench -- --compare a.json b.json [--all]
scenarios (in run order): ${SCENARIOS.join(', ')}`;

function parse(argv: string[]): Options | { compare: [string, string]; all: boolean } {
  const get = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const nums = (s: string | undefined, d: number[]) =>
    s
      ? s
          .split(',')
          .map(Number)
          .filter((n) => n > 0)
      : d;
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  if (argv.includes('--compare')) {
    const i = argv.indexOf('--compare');
    const [a, b] = [argv[i + 1], argv[i + 2]];
    if (!a || !b) throw new Error(USAGE);
    return { compare: [a, b], all: argv.includes('--all') };
  }
  const quick = argv.includes('--quick');
  const only = get('--only')?.split(',') ?? null;
  for (const s of only ?? [])
    if (!SCENARIOS.includes(s as ScenarioName)) throw new Error(`unknown scenario ${s}\n${USAGE}`);
  return {
    quick,
    only,
    profile: argv.includes('--profile-status') ? 'status' : argv.includes('--profile') ? 'intake' : false,
    perf: argv.includes('--perf'),
    logLevel: get('--log-level') ?? 'info',
    partners: Number(get('--partners') ?? 20),
    duplicateShare: Number(get('--duplicates') ?? 0.1),
    ingressRates: nums(get('--ingress-rates'), quick ? [200, 500] : [100, 200, 500, 800]),
    pipelineRates: nums(get('--pipeline-rates'), quick ? [5, 20, 50, 200] : [5, 10, 20, 50, 100, 200, 500]),
    stepS: Number(get('--step-seconds') ?? (quick ? 5 : 10)),
    storedLeads: Number(get('--stored') ?? (quick ? 50_000 : 200_000)),
    viewDocs: Number(get('--views') ?? (quick ? 100_000 : 1_000_000)),
    instances: Number(get('--instances') ?? 1),
    soakMinutes: Number(get('--soak-minutes') ?? (quick ? 1 : 5)),
    soakRate: Number(get('--soak-rate') ?? 500),
    backlog: Number(get('--backlog') ?? (quick ? 2000 : 10_000)),
    backlogSeconds: Number(get('--backlog-seconds') ?? 300),
    idleS: Number(get('--idle-seconds') ?? 60),
    keepSeed: get('--keep-seed') ?? null,
    out: get('--out') ?? null,
    nodeOptions: [
      ...(argv.includes('--perf') ? PERF_NODE_OPTIONS : []),
      ...(get('--node-options') ?? '').split(' ').filter(Boolean),
    ],
    roleEnv: Object.fromEntries(
      (get('--role-env') ?? '')
        .split(',')
        .filter(Boolean)
        .map((kv) => {
          const [k, ...v] = kv.split('=');
          return [k as string, v.join('=')];
        }),
    ),
  };
}

async function main(): Promise<void> {
  const parsed = parse(process.argv.slice(2));
  if ('compare' in parsed) {
    process.stdout.write(`${compare(parsed.compare[0], parsed.compare[1], parsed.all)}\n`);
    return;
  }
  const opts = parsed;
  if (opts.perf && !PerfRecorder.available()) throw new Error('--perf needs Linux perf (apt-get install linux-perf)');
  const startedAt = new Date();
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  const runDir = join(tmpdir(), 'lead-intake-bench', stamp);
  const ctx = makeContext(opts, runDir);
  await buildForBench(ctx.log);
  ctx.log(`run ${stamp}: logs and profiles in ${runDir}`);
  ctx.log(
    `services: ${ctx
      .services()
      .filter((s) => s.name !== 'bench')
      .map((s) => `${s.name} pid ${s.pid}`)
      .join(', ')}; MONGO_URL=${servicesEnv().MONGO_URL}`,
  );
  const load1AtStart = load1();
  if (load1AtStart > 1.5)
    ctx.log(
      `warning: load average is ${load1AtStart.toFixed(1)} on ${cpus().length} cores before the run: other work will skew the figures`,
    );

  const results: Partial<Record<ScenarioName, ScenarioResult>> = {};
  const failures: Record<string, string> = {};
  const t0 = Date.now();
  for (const name of SCENARIOS) {
    if (opts.only && !opts.only.includes(name)) continue;
    const started = Date.now();
    ctx.log(`scenario ${name}`);
    const serversBefore = ctx.serverIdentity();
    try {
      const r =
        name === 'mongo'
          ? await mongoScenario(ctx)
          : name === 'views'
            ? await viewsScenario(ctx)
            : name === 'manager-views'
              ? await managerViewsScenario(ctx)
              : name === 'portal'
                ? await portalScenario(ctx)
                : name === 'manager-access'
                  ? await managerAccessScenario(ctx)
                  : name === 'http-path'
                    ? await httpPathScenario(ctx)
                    : name === 'dispatcher'
                      ? await dispatcherScenario(ctx)
                      : name === 'idle'
                        ? await idleScenario(ctx)
                        : await intakeScenario(ctx, name);
      const serversAfter = ctx.serverIdentity();
      r.data.servers = serversBefore;
      if (JSON.stringify(serversAfter) !== JSON.stringify(serversBefore)) {
        r.data.serversAfter = serversAfter;
        r.notes.push(
          `a server was restarted or replaced during this scenario (see data.servers / data.serversAfter): its figures are not one setup`,
        );
      }
      results[name] = r;
      for (const t of r.tables) process.stdout.write(`${renderTable(t)}\n`);
      for (const n of r.notes) process.stdout.write(`  note: ${n}\n`);
    } catch (err) {
      failures[name] = (err as Error).stack ?? String(err);
      ctx.log(`scenario ${name} failed: ${(err as Error).message}`);
    }
    ctx.log(`scenario ${name} took ${Math.round((Date.now() - started) / 1000)} s`);
  }

  const targets = checkTargets(results);
  process.stdout.write(
    `${renderTable({
      title: 'Targets (2 cores, everything local)',
      columns: ['target', 'goal', 'measured', 'met', 'capped by'],
      rows: targets.map((t) => [t.name, t.goal, t.measured, t.met === null ? 'n/a' : t.met ? 'yes' : 'NO', t.cappedBy]),
    })}\n`,
  );

  const out = opts.out ?? join(ROOT, 'bench', 'results', `${stamp}.json`);
  writeJson(out, {
    meta: {
      startedAt: startedAt.toISOString(),
      seconds: Math.round((Date.now() - t0) / 1000),
      git: gitDescribe(),
      node: process.version,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      memoryGb: Math.round(totalmem() / 2 ** 30),
      load1AtStart,
      mongoUrl: servicesEnv().MONGO_URL,
      services: servicesEnv(),
      options: opts,
      logs: runDir,
    },
    targets,
    scenarios: results,
    failures,
  });
  process.stdout.write(`\nresults: ${out}\n`);
  if (Object.keys(failures).length > 0) {
    process.stdout.write(`failed scenarios: ${Object.keys(failures).join(', ')} (stack traces in the JSON)\n`);
    process.exitCode = 1;
  }
}

function gitDescribe(): string {
  try {
    const head = execSync('git rev-parse --short HEAD', { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execSync('git status --porcelain -- src', { cwd: ROOT, encoding: 'utf8' }).trim() ? '+dirty-src' : '';
    return `${head}${dirty}`;
  } catch {
    return 'unknown';
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(2);
});
