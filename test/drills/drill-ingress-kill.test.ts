import { startApp, type App } from '../../src/app';
import { loadConfig } from '../../src/shared/config';
import { createLogger } from '../../src/shared/logger';
import type { IntakeCommand } from '../../src/shared/schemas';
import { CallbackReceiver } from '../support/callback-receiver';
import { startChildRole, type ChildRole } from '../support/child-role';
import { expectNothingLost, expectOnlyRetryableFailures } from '../support/drill-checks';
import { DRILL_ENV, DRILL_PATH, drillPartner, KILLED_ROLE_ENV } from '../support/drill-partner';
import { SteadyLoad, type LeadRun } from '../support/steady-load';
import { dropTestData } from '../support/test-app';
import { testEnv } from '../support/test-config';
import { TopicProbe, until } from '../support/topic-probe';

// Fault drill: two ingress instances behind a partner that retries on the other one; kill -9 of one
// in the middle of a steady load, then a restart. Every role is its own OS process through
// src/main.ts (processor and dispatcher together); this process only drives and checks.
// To be sure requests are in flight when the instance dies, the processor is paused (SIGSTOP) for
// the moment of the kill: a burst sent to the doomed instance is then claimed and waiting for its
// decision. Each of those requests must end, retried with the same Idempotency-Key against the
// other instance, with exactly one lead: the stored decision, replayed.
const env = testEnv(DRILL_ENV);
const config = loadConfig(env);
// The doomed instance's requests must still be waiting when it dies, however slow the machine.
const ingressEnv = { ...env, ...KILLED_ROLE_ENV, INTAKE_REPLY_TIMEOUT_MS: '6000' };
let client: App;
let pipeline: ChildRole | undefined;
const ingress: (ChildRole | undefined)[] = [];
let receiver: CallbackReceiver;
let commands: TopicProbe<IntakeCommand>;

beforeAll(async () => {
  receiver = await new CallbackReceiver().start();
  // A bare runtime on the drill's servers, to create the partner and read what was stored.
  client = await startApp({ ...config, roles: [] } as typeof config, createLogger('silent'));
  commands = await new TopicProbe<IntakeCommand>(client.runtime, 'intakeCommands').start();
  [pipeline, ingress[0], ingress[1]] = await Promise.all([
    startChildRole('processor,dispatcher', env),
    startChildRole('ingress', ingressEnv),
    startChildRole('ingress', ingressEnv),
  ]);
}, 120_000);

afterAll(async () => {
  pipeline?.process.kill('SIGCONT');
  await commands?.stop();
  await Promise.all([pipeline, ...ingress].map((c) => c?.kill()));
  await receiver?.stop();
  await client?.stop();
  await dropTestData(config);
});

it('finishes every request cut off by a kill -9 of its ingress on the other one, with exactly one lead each', async () => {
  const partner = await drillPartner(client.runtime, receiver);
  let targets = ingress.map((c) => c!.url);
  const load = new SteadyLoad({ targets: () => targets, creds: partner.creds, perSecond: 3 }).start();
  await until(async () => load.runs.filter((r) => r.final?.status === 200).length >= 6, 30_000, 'the first leads');

  const [doomed, survivor] = [ingress[0]!, ingress[1]!];
  pipeline!.process.kill('SIGSTOP');
  let cutOff: LeadRun[] = [];
  try {
    cutOff = load.burst(8, doomed.url);
    // Each burst request has claimed its key and sent its command: it waits for a decision.
    const keys = new Set(cutOff.map((r) => r.key));
    await commands.waitFor(
      (cs) => cs.filter((c) => keys.has(c.idempotency_key)).length === keys.size,
      15_000,
      'the burst to be in flight',
    );
    await doomed.kill('SIGKILL');
    targets = [survivor.url];
  } finally {
    pipeline!.process.kill('SIGCONT');
  }
  ingress[0] = undefined;
  ingress[0] = await startChildRole('ingress', ingressEnv);
  targets = [survivor.url, ingress[0].url];
  await new Promise((r) => setTimeout(r, 2000));
  await load.stop();

  for (const run of cutOff) {
    // Cut off on the dead instance, finished elsewhere with the decision made for the first attempt.
    expect(run.attempts[0]).toMatchObject({ target: doomed.url, status: null });
    expect(run.final).toMatchObject({ status: 200, body: { status: 'accepted', replay: true } });
    expect(run.final!.target).not.toBe(doomed.url);
  }
  expectOnlyRetryableFailures(load.runs);
  await expectNothingLost({ rt: client.runtime, partnerId: partner.id, runs: load.runs, receiver, path: DRILL_PATH });
}, 180_000);
