import { loadConfig } from '../../src/shared/config';
import { CallbackReceiver, type ReceivedCallback } from './callback-receiver';
import { startChildRole, type ChildPlace, type ChildRole } from './child-role';
import { expectNothingLost, expectOnlyRetryableFailures, type DrillReport } from './drill-checks';
import { DRILL_ENV, DRILL_PATH, drillEventOf, drillPartner, refusedFirst } from './drill-partner';
import { SteadyLoad, type LeadRun, type SteadyLoadOptions } from './steady-load';
import { startTestApp, type TestApp } from './test-app';
import { testEnv } from './test-config';

export type DrillRole = 'processor' | 'dispatcher';

export interface RollingDrill {
  app: TestApp; // the ingress, in this process
  receiver: CallbackReceiver;
  // Steady intake for a new drill partner while `step` runs once per entry of `steps` (each once 10
  // more callbacks have arrived); then checks that nothing was lost and returns the report and the
  // callbacks this partner received.
  // `targets`: the ingress instances the load goes to (default: `app` alone).
  underLoad(
    steps: readonly (() => Promise<void>)[],
    load?: Partial<Pick<SteadyLoadOptions, 'perSecond' | 'maxInFlight' | 'targets'>>,
  ): Promise<{ report: DrillReport; got: ReceivedCallback[]; runs: LeadRun[]; partnerId: string }>;
  // The environment the drill's roles run with (for another instance the test starts itself).
  env(): Record<string, string>;
  // Ends instance `n` of `role` with `signal` and starts a new one in its place, as a deploy does.
  replace(role: DrillRole, n: number, signal: NodeJS.Signals): Promise<void>;
  // The OS process of instance `n` of `role` (to freeze it with SIGSTOP, thaw it with SIGCONT).
  pid(role: DrillRole, n: number): number;
  // The value of an unlabelled metric of instance `n` of `role`, from its /metrics.
  metric(role: DrillRole, n: number, name: string): Promise<number>;
}

// Two processors and two dispatchers as OS processes of their own (src/main.ts), as the Helm chart
// deploys them, and the ingress in this process: the setup of the drills that move partitions
// between live instances. Registers its jest hooks.
// `where` may give an instance env of its own and a place (a network namespace) to run in.
type Placement = { env?: Record<string, string>; place?: ChildPlace } | undefined;
export type InstancePlace = (role: DrillRole, n: number) => Placement | Promise<Placement>;

export function rollingDrill(
  extraEnv: Record<string, string> | (() => Record<string, string>) = {},
  where: InstancePlace = () => undefined,
): RollingDrill {
  let env: Record<string, string> = {};
  const roles: Record<DrillRole, ChildRole[]> = { processor: [], dispatcher: [] };
  const start = async (role: DrillRole, n: number): Promise<ChildRole> => {
    const at = await where(role, n);
    return startChildRole(role, { ...env, ...at?.env }, 60_000, at?.place);
  };
  const drill = {
    async replace(role: DrillRole, n: number, signal: NodeJS.Signals) {
      await roles[role][n]?.kill(signal);
      roles[role][n] = await start(role, n);
    },
    pid(role: DrillRole, n: number) {
      const pid = roles[role][n]?.process.pid;
      if (pid === undefined) throw new Error(`no ${role} #${n}`);
      return pid;
    },
    async metric(role: DrillRole, n: number, name: string) {
      const url = roles[role][n]?.url;
      if (url === undefined) throw new Error(`no ${role} #${n}`);
      const line = (await (await fetch(`${url}/metrics`)).text()).split('\n').find((l) => l.startsWith(`${name} `));
      if (line === undefined) throw new Error(`${role} #${n} has no metric ${name}`);
      return Number(line.slice(name.length + 1));
    },
    env: () => env,
    async underLoad(
      steps: readonly (() => Promise<void>)[],
      rate: Partial<Pick<SteadyLoadOptions, 'perSecond' | 'maxInFlight' | 'targets'>> = {},
    ) {
      const { app, receiver } = drill;
      const partner = await drillPartner(app.runtime, receiver);
      const load = new SteadyLoad({ targets: () => [app.url], creds: partner.creds, perSecond: 8, ...rate }).start();
      const before = receiver.at(DRILL_PATH).length;
      let expected = before + 10;
      for (const step of steps) {
        await receiver.waitFor(DRILL_PATH, expected, 60_000);
        await step();
        expected = receiver.at(DRILL_PATH).length + 10;
      }
      await receiver.waitFor(DRILL_PATH, expected, 60_000);
      await load.stop();
      expectOnlyRetryableFailures(load.runs);
      const report = await expectNothingLost({
        rt: app.runtime,
        partnerId: partner.id,
        runs: load.runs,
        receiver,
        path: DRILL_PATH,
        timeoutMs: 90_000,
      });
      return { report, got: receiver.at(DRILL_PATH).slice(before), runs: load.runs, partnerId: partner.id };
    },
  } as Omit<RollingDrill, 'app' | 'receiver'> as RollingDrill;

  // A function gives the env once the suite's earlier beforeAll hooks ran (servers of its own).
  beforeAll(async () => {
    env = testEnv({ ...DRILL_ENV, ...(typeof extraEnv === 'function' ? extraEnv() : extraEnv) });
    drill.receiver = await new CallbackReceiver().start();
    drill.app = await startTestApp({}, loadConfig({ ...env, ROLE: 'ingress' }));
    const started = await Promise.all([
      start('processor', 0),
      start('processor', 1),
      start('dispatcher', 0),
      start('dispatcher', 1),
    ]);
    roles.processor = started.slice(0, 2);
    roles.dispatcher = started.slice(2);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([...roles.processor, ...roles.dispatcher].map((c) => c.kill()));
    await drill.receiver?.stop();
    await drill.app?.destroy();
  });
  return drill;
}

// Events received more often than the drill receiver's answers explain (once, or twice for an
// event whose first attempt it refuses), and than the attempts recorded without an answer (each may
// have reached the partner: `unanswered`, from the drill report), with the times they were received.
export function repeatedEvents(
  got: readonly ReceivedCallback[],
  unanswered: ReadonlyMap<string, number> = new Map(),
): Map<string, number[]> {
  const receptions = new Map<string, number[]>();
  for (const c of got) {
    const event = drillEventOf(c.body);
    receptions.set(event, [...(receptions.get(event) ?? []), c.at]);
  }
  return new Map(
    [...receptions].filter(([event, at]) => at.length > (refusedFirst(event) ? 2 : 1) + (unanswered.get(event) ?? 0)),
  );
}

// What a partner may see after a fault from outside a process (a freeze, a partition) that began at
// `faultAt`, or after processes killed at those times: a repeat only of an attempt in flight then
// (its answer was lost with the membership or the process, docs/delivery-guarantees.md), so some
// reception of every repeated event lies within one callback timeout (and `slackMs` for its record)
// of a fault, or is of an attempt recorded without an answer; and no lead's callbacks out of order.
export function expectRepeatsOnlyAround(
  got: readonly ReceivedCallback[],
  faultAt: number | readonly number[],
  report: Pick<DrillReport, 'unanswered'>,
  slackMs = 1000,
): void {
  const window = Number(DRILL_ENV.CALLBACK_TIMEOUT_MS) + slackMs;
  const faults = typeof faultAt === 'number' ? [faultAt] : faultAt;
  const unexplained = [...repeatedEvents(got, report.unanswered)].filter(
    ([, at]) => !at.some((t) => faults.some((f) => t <= f + window && t >= f - window)),
  );
  expect(unexplained).toEqual([]);
  expect(outOfOrder(got)).toEqual([]);
}

// Leads whose callbacks reached the partner out of event order: some reception of a status came
// after a reception of the status that follows it in `history`.
export function outOfOrder(
  got: readonly ReceivedCallback[],
  history: readonly string[] = ['new', 'assigned'],
): string[] {
  const seen = new Map<string, string[]>();
  for (const c of got) {
    const lead = String(c.body?.internal_id);
    seen.set(lead, [...(seen.get(lead) ?? []), String(c.body?.our_status)]);
  }
  return [...seen]
    .filter(([, statuses]) => {
      const ranks = statuses.map((s) => history.indexOf(s));
      return ranks.some((r, i) => ranks.slice(i + 1).some((later) => later < r));
    })
    .map(([lead, statuses]) => `${lead}: ${statuses.join(' > ')}`);
}
