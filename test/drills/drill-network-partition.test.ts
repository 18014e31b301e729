import { startChildRole } from '../support/child-role';
import { DRILL_ENV } from '../support/drill-partner';
import { NetworkNamespace } from '../support/network-namespace';
import { freePrivatePort } from '../support/private-service';
import { expectRepeatsOnlyAround, rollingDrill } from '../support/rolling-drill';
import { serviceEnv } from '../setup/services-env';

// A network partition from Kafka only: dispatcher #0 runs in a network namespace of its own and
// reaches MongoDB, Redis, the schema registry and the partner through forwarders; the Kafka
// forwarder is frozen for one and a half sessions (its traffic silently dropped, as a partition
// does) under load, then thawed. The cut-off dispatcher must stop attempting and recording once its
// lease runs out, the other one takes its partitions, and after the heal nothing is lost, repeated
// beyond the attempts in flight at the cut, or out of order. Then an ingress joins it there and both
// are cut off together: the ingress answers a retryable 503 within its reply timeout while it cannot
// reach Kafka, and takes leads again once healed.
const SESSION_MS = 10_000;
const CUT_MS = SESSION_MS * 1.5;
const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const portOf = (url: string) => Number(new URL(url.includes('://') ? url : `tcp://${url}`).port);

let ns: NetworkNamespace;
let httpPort = 0;
const services = serviceEnv();
const kafkaPort = portOf(services.KAFKA_BROKERS as string);

beforeAll(async () => {
  ns = NetworkNamespace.create();
  for (const url of [services.KAFKA_BROKERS, services.MONGO_URL, services.REDIS_URL, services.SCHEMA_REGISTRY_URL])
    await ns.forwardIn(portOf(url as string));
  httpPort = await freePrivatePort();
  await ns.forwardOut(httpPort, httpPort);
});
afterAll(() => ns?.destroy());

let receiverForwarded = false;
const drill = rollingDrill({ KAFKA_SESSION_TIMEOUT_MS: String(SESSION_MS) }, async (role, n) => {
  if (role !== 'dispatcher' || n !== 0) return undefined;
  if (!receiverForwarded) {
    await ns.forwardIn(portOf(drill.receiver.url('/')));
    receiverForwarded = true;
  }
  return { env: { HTTP_PORT: String(httpPort) }, place: { wrap: (argv) => ns.wrap(argv), reachAt: (url) => url } };
});

// Everything in the namespace loses Kafka for CUT_MS: when the cut began and when it healed.
const cut = { at: 0, healedAt: 0 };
const cutKafka = async (): Promise<void> => {
  ns.cut(kafkaPort);
  cut.at = Date.now();
  await wait(CUT_MS);
  ns.heal(kafkaPort);
  cut.healedAt = Date.now();
};

it('a dispatcher cut off from Kafka (but not from the store and the partner) loses, repeats and reorders nothing', async () => {
  const { got, report } = await drill.underLoad([() => wait(5000), cutKafka, () => wait(8000)], {
    perSecond: 60,
    maxInFlight: 32,
  });
  expect(report.leads).toBeGreaterThan(300);
  expectRepeatsOnlyAround(got, cut.at, report);
}, 300_000);

it('an ingress cut off from Kafka answers 503 promptly and takes leads again once healed', async () => {
  const port = await freePrivatePort();
  await ns.forwardOut(port, port);
  const ingress = await startChildRole('ingress', { ...drill.env(), HTTP_PORT: String(port) }, 60_000, {
    wrap: (argv) => ns.wrap(argv),
    reachAt: (url) => url,
  });
  try {
    // 12 s after the heal: the ingress's consumers rejoin within about 5 s, and what is counted after that
    // needs some seconds of leads; on a loaded machine (two drill workers) 3 s gave exactly 10.
    const { got, runs, report } = await drill.underLoad([() => wait(3000), cutKafka, () => wait(12_000)], {
      perSecond: 40,
      maxInFlight: 24,
      targets: () => [drill.app.url, ingress.url],
    });
    const attempts = runs.flatMap((r) => r.attempts).filter((a) => a.target === ingress.url);
    // Started once the cut was sure to be felt: each answered within the reply timeout (and a
    // little), a retryable 503, or a decision already stored for its key.
    const whileCut = attempts.filter((a) => a.startedAt > cut.at + 1000 && a.startedAt < cut.healedAt);
    const replyTimeoutMs = Number(DRILL_ENV.INTAKE_REPLY_TIMEOUT_MS);
    expect(whileCut.length).toBeGreaterThan(10);
    expect(
      whileCut
        .filter((a) => a.ms > replyTimeoutMs + 1500 || (a.status !== 503 && a.status !== 200))
        .map((a) => `${a.status ?? a.error} after ${a.ms} ms`),
    ).toEqual([]);
    expect(attempts.filter((a) => a.startedAt > cut.healedAt + 5000 && a.status === 200).length).toBeGreaterThan(10);
    expectRepeatsOnlyAround(got, cut.at, report);
  } finally {
    await ingress.kill();
  }
}, 300_000);
