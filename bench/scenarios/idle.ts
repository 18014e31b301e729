import { join } from 'node:path';
import { logDirOf, type BenchContext, type ScenarioResult, type Table } from '../lib/context';
import { monotonicUs, summariseProfile, type ProfileSummary } from '../lib/cpuprofile';
import { scenarioEnv, sleep } from '../lib/env';
import { LeadStream } from '../lib/leads';
import { closedLoop } from '../lib/load';
import { CpuMeter, type CpuWindow, type Watched } from '../lib/proc';
import { profileTables } from '../lib/report';
import { pipelineWork } from '../lib/role-metrics';
import { startHelper, startRole, type Helper, type RoleProcess } from '../lib/roles';
import { createAgents, createPartners, dropScenario } from '../lib/setup';
import { r1 } from '../lib/stats';
import { ourShare, SERVERS } from '../lib/cpu-per-lead';

interface IdleWindow {
  layout: string;
  cpu: CpuWindow;
  storeCommandsPerMinute: Record<string, number>; // by command and collection, our processes' own
  serversBefore: Record<string, number>; // the servers with none of our processes running (others' clients only)
}

// A stack at rest: the roles as separate processes, then the all-in-one app, each with partners,
// agents, a few leads and mail on, left alone for --idle-seconds (60) after a settling pause. The
// servers are shared with whatever else runs on the machine, so their CPU is also read for as long
// with none of our processes running, just before: what our processes cost them is the difference.
export async function idleScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const { opts } = ctx;
  const windows: IdleWindow[] = [];
  const profiles: Record<string, ProfileSummary | null> = {};
  for (const layout of ['roles apart', 'all-in-one']) {
    const { env, tag } = scenarioEnv('idle', opts.logLevel, {
      SMTP_URL: process.env.SMTP_URL ?? 'smtp://127.0.0.1:1025',
      CONSOLE_URL: 'http://127.0.0.1:1',
      MAIL_FROM: 'bench@example.com',
      ...opts.roleEnv,
    });
    const logDir = logDirOf(ctx, `idle-${layout.replace(/\W+/g, '-')}`);
    const profDir = opts.profile ? join(logDir, 'profiles') : undefined;
    const roles: RoleProcess[] = [];
    let receiver: Helper | null = null;
    const servers = (): Watched[] => ctx.services().filter((s) => s.name !== 'bench');
    try {
      ctx.log(`idle, ${layout}: the servers alone for ${opts.idleS} s`);
      const alone = new CpuMeter(servers);
      alone.start();
      await sleep(opts.idleS * 1000);
      const serversBefore = alone.stop().perProcess;
      receiver = await startHelper('receiver', {}, logDir);
      const start = (role: string) =>
        startRole(role, env, { logDir, cpuProfDir: profDir, nodeOptions: opts.nodeOptions });
      for (const role of layout === 'all-in-one' ? ['all'] : ['ingress', 'processor', 'dispatcher'])
        roles.push(await start(role));
      const url = (roles[0] as RoleProcess).url;
      const base = await receiver.request<string>({ type: 'base' });
      const partners = await createPartners(url, opts.partners, (i) => `${base}/p${i}`, tag);
      for (const [i, p] of partners.entries())
        await receiver.request({ type: 'route', path: `/p${i}`, secret: p.callback_secret });
      await createAgents(url, 2);
      const stream = new LeadStream(partners, tag, 0);
      await closedLoop({ baseUrl: [url], next: () => stream.next(), durationS: 2, concurrency: 4 });
      await sleep(10_000); // the leads' callbacks, joins and first timers settle
      ctx.log(`idle, ${layout}: our processes at rest for ${opts.idleS} s`);
      const meter = new CpuMeter(() => [...roles.map((r) => ({ name: r.role, pid: r.pid })), ...servers()]);
      const storeBefore = (await pipelineWork(roles)).commands;
      const from = monotonicUs();
      meter.start();
      await sleep(opts.idleS * 1000);
      const cpu = meter.stop();
      const to = monotonicUs();
      const storeAfter = (await pipelineWork(roles)).commands;
      const storeCommandsPerMinute = Object.fromEntries(
        [...storeAfter]
          .map(([k, n]): [string, number] => [k, r1(((n - (storeBefore.get(k) ?? 0)) * 60) / cpu.seconds)])
          .filter(([, n]) => n > 0),
      );
      windows.push({ layout, cpu, serversBefore, storeCommandsPerMinute });
      for (const r of roles) await r.stop();
      if (profDir)
        for (const r of roles)
          profiles[`${r.role} (${layout})`] = summariseProfile(join(profDir, `${r.role}.cpuprofile`), {
            fromUs: from,
            toUs: to,
          });
    } finally {
      for (const r of roles) await r.stop().catch(() => undefined);
      await receiver?.stop().catch(() => undefined);
      await dropScenario(env);
    }
  }
  return {
    name: 'idle',
    title: 'A stack at rest',
    tables: [idleTable(windows), storeTable(windows), ...profileTables(profiles)],
    data: { idleSeconds: opts.idleS, windows, profiles },
    notes: [],
  };
}

function idleTable(windows: IdleWindow[]): Table {
  const names = [...new Set(windows.flatMap((w) => Object.keys(w.cpu.perProcess)))].filter(
    (n) => !(SERVERS as readonly string[]).includes(n) && n !== 'receiver',
  );
  return {
    title: 'CPU at rest, % of one core',
    columns: ['layout', 'seconds', ...names, 'our processes', ...SERVERS.map((s) => `${s} (+ours)`), 'others'],
    rows: windows.map((w) => [
      w.layout,
      w.cpu.seconds,
      ...names.map((n) => w.cpu.perProcess[n] ?? null),
      ourShare(w.cpu.perProcess),
      ...SERVERS.map((s) =>
        w.cpu.perProcess[s] === undefined
          ? null
          : `${w.cpu.perProcess[s]} (${r1((w.cpu.perProcess[s] ?? 0) - (w.serversBefore[s] ?? 0))})`,
      ),
      w.cpu.othersPct,
    ]),
    note: 'each server: its CPU with our processes at rest (in brackets: minus its CPU with none of them running, just before: what they cost it); others = the rest of the machine',
  };
}

function storeTable(windows: IdleWindow[]): Table {
  const keys = [...new Set(windows.flatMap((w) => Object.keys(w.storeCommandsPerMinute)))].sort();
  return {
    title: 'Store commands a minute at rest, by command and collection (our processes)',
    columns: ['command collection', ...windows.map((w) => w.layout)],
    rows: keys.map((k) => [k, ...windows.map((w) => w.storeCommandsPerMinute[k] ?? 0)]),
    note: "from the roles' lead_intake_mongo_commands_total, read at the start and the end of the rest",
  };
}
