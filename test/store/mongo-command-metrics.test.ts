import { Registry } from 'prom-client';
import { connectMongo, type Mongo } from '../../src/shared/mongo/client';
import { collectionLabel, countMongoCommands } from '../../src/shared/mongo/command-metrics';
import { testConfig } from '../support/test-config';

// The database's work by collection, as operators and the benchmark read it: commands sent and
// documents written, counted from the driver's own command events on a real server.
let mongo: Mongo;
const registry = new Registry();

beforeAll(async () => {
  mongo = await connectMongo(testConfig());
  countMongoCommands(mongo.client, registry);
});

afterAll(async () => {
  await mongo?.db.dropDatabase().catch(() => undefined);
  await mongo?.client.close();
});

async function value(name: string, labels: Record<string, string>): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  return (metric?.values ?? []).find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value ?? 0;
}

it('counts each command and the documents it writes, by collection, with day and period collections under one name', async () => {
  const day = mongo.db.collection<{ _id: string; n?: number }>('intake_decisions_20261125');
  await day.insertMany([{ _id: 'a' }, { _id: 'b' }, { _id: 'c' }]);
  await day.bulkWrite([
    { updateOne: { filter: { _id: 'a' }, update: { $set: { n: 1 } } } },
    { updateOne: { filter: { _id: 'b' }, update: { $set: { n: 2 } } } },
  ]);
  await day.deleteOne({ _id: 'c' });
  expect(await day.find({}).toArray()).toHaveLength(2);
  await mongo.db.collection('dedup_claims_p692').insertOne({ _id: 'x' } as never);

  const decisions = { collection: 'intake_decisions_*' };
  expect(await value('lead_intake_mongo_documents_written_total', { ...decisions, command: 'insert' })).toBe(3);
  expect(await value('lead_intake_mongo_documents_written_total', { ...decisions, command: 'update' })).toBe(2);
  expect(await value('lead_intake_mongo_documents_written_total', { ...decisions, command: 'delete' })).toBe(1);
  expect(await value('lead_intake_mongo_commands_total', { ...decisions, command: 'update' })).toBe(1);
  expect(await value('lead_intake_mongo_commands_total', { ...decisions, command: 'find' })).toBe(1);
  expect(
    await value('lead_intake_mongo_documents_written_total', { collection: 'dedup_claims_*', command: 'insert' }),
  ).toBe(1);
  expect(await value('lead_intake_mongo_commands_total', { command: 'ping' })).toBe(0);
});

it('names a collection the same whatever its day or period', () => {
  expect(
    ['intake_decisions_20261125', 'lead_keys_20261124', 'dedup_claims_p692', 'leads', 'delivery_list'].map(
      collectionLabel,
    ),
  ).toEqual(['intake_decisions_*', 'lead_keys_*', 'dedup_claims_*', 'leads', 'delivery_list']);
});
