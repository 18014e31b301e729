import { deliveryId } from '../../src/shared/ids';
import { childLogLines, childLogLinesAround } from '../support/child-role';
import { drillEventOf } from '../support/drill-partner';
import { PrivateService } from '../support/private-service';
import { outOfOrder, repeatedEvents, rollingDrill } from '../support/rolling-drill';

// A broker failover under load: a private 3-node KRaft cluster (the same Kafka jars, replication 3,
// min ISR 2), two of each role against it, and each broker killed (kill -9) in turn and started
// again 6 s later, so every partition leader and the group coordinators move. As a partner sees it:
// every lead answered once, every event's callback delivered, nothing repeated beyond the receiver's
// refusals, nothing out of order. It found kafkajs's partial produce retry dropping lead events and
// its idempotent producer wedging on a new leader (docs/delivery-guarantees.md).
const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe('broker failover', () => {
  const nodes: PrivateService[] = [];
  beforeAll(async () => {
    nodes.push(...(await PrivateService.kafkaCluster(3)));
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
    const { got, report, partnerId } = await drill.underLoad([() => wait(4000), ...nodes.map(failover)], {
      perSecond: 40,
      maxInFlight: 24,
    });
    // Intake stalls for a few seconds at each failover (until the controller moves the leaders and
    // kafkajs's metadata follows): the count shows the load ran throughout, not a speed.
    expect(report.leads).toBeGreaterThan(50);
    // Each repeat with its receptions' times and event ids (one id twice is one delivery sent twice, two
    // ids are two events of one change), and what the store and the roles' logs say of its deliveries.
    const receptions = (event: string) => got.filter((c) => drillEventOf(c.body) === event);
    // The dispatchers' lines from 10 s before its first reception to 2 s after its last: which member
    // held, handed over or lost the partition when both sent it.
    const repeats = await Promise.all(
      [...repeatedEvents(got, report.unanswered).keys()].map(async (event) => {
        const ids = [...new Set(receptions(event).map((c) => deliveryId(String(c.headers['x-event-id']), partnerId)))];
        const records = await drill.app.runtime.mongo.collections.deliveries.find({ _id: { $in: ids } }).toArray();
        const at = receptions(event).map((c) => c.at);
        return {
          [event]: receptions(event).map((c) => `${c.at} ${String(c.headers['x-event-id'])}`),
          records: records.map((r) => ({ _id: r._id, state: r.state, attempts: r.attempts })),
          log: ids.flatMap(childLogLines),
          dispatchers: childLogLinesAround('dispatcher', Math.min(...at) - 10_000, Math.max(...at) + 2000),
        };
      }),
    );
    expect(repeats).toEqual([]);
    expect(outOfOrder(got)).toEqual([]);
  }, 600_000);
});
