import { PrivateService } from '../support/private-service';
import { outOfOrder, repeatedEvents, rollingDrill } from '../support/rolling-drill';

// A broker failover under load: a private 3-node KRaft cluster (the same Kafka jars, replication 3,
// min ISR 2), two of each role against it, and each broker killed (kill -9) in turn and started
// again 6 s later, so every partition leader and the group coordinators move. Producers whose
// sequence a new leader refuses are replaced; consumers rejoin. As a partner sees it: every lead
// answered once, every event's callback delivered, nothing repeated beyond the receiver's refusals,
// nothing out of order.
//
// Opt-in (DRILL_BROKER_FAILOVER=1) until it has passed often enough to be trusted in CI (issue 45).
// Before the producer lost its retries inside kafkajs (client.ts), most runs lost both events of 1
// to 16 leads: absent from leads.events on every broker though their send succeeded; since, the one
// run made passed.
const run = process.env.DRILL_BROKER_FAILOVER === '1' ? describe : describe.skip;
const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

run('broker failover', () => {
  const nodes: PrivateService[] = [];
  beforeAll(async () => {
    nodes.push(...await PrivateService.kafkaCluster(3));
    await Promise.all(nodes.map((n) => n.start()));
  }, 180_000);
  const drill = rollingDrill(() => ({
    KAFKA_BROKERS: nodes.map((n) => `127.0.0.1:${n.port}`).join(','),
    KAFKA_REPLICATION_FACTOR: '3',
    KAFKA_MIN_INSYNC_REPLICAS: '2',
  }));
  // After the drill's own (hooks run in the order declared): the roles stop before their brokers.
  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.destroy()));
  });

  it('loses, repeats and wedges nothing while each broker is killed and restarted in turn', async () => {
    const failover = (n: PrivateService) => async () => {
      n.kill();
      await wait(6000);
      await n.start();
      await wait(4000);
    };
    const { got, report } = await drill.underLoad([() => wait(4000), ...nodes.map(failover)], { perSecond: 40, maxInFlight: 24 });
    expect(report.leads).toBeGreaterThan(200);
    expect([...repeatedEvents(got).keys()]).toEqual([]);
    expect(outOfOrder(got)).toEqual([]);
  }, 600_000);
});
