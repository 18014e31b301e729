import { MongoClient } from 'mongodb';
import { IdAllocator } from '../../src/processor/id-allocator';
import type { IdBlockDoc } from '../../src/shared/mongo/documents';
import { testConfig } from '../support/test-config';

// Lead ids never collide, not even while a rolling config change runs processors with different
// ID_BLOCK_SIZE values side by side, on the real MongoDB-wire server.
const config = testConfig();
let mongo: MongoClient;

beforeAll(async () => {
  mongo = await MongoClient.connect(config.mongo.url);
});

afterAll(async () => {
  await mongo.db(config.mongo.db).dropDatabase();
  await mongo.close();
});

it('hands out every id once across instances with different block sizes, old and new side by side', async () => {
  const blocks = mongo.db(config.mongo.db).collection<IdBlockDoc>('id_blocks');
  const sizes = [100, 10, 1000, 7, 100, 10];
  const allocators = sizes.map((size) => new IdAllocator(blocks, 'lead', size));
  const ids: number[] = [];
  // Interleaved, several at once: each instance refills while the others do.
  for (let round = 0; round < 30; round++) {
    ids.push(...(await Promise.all(allocators.flatMap((a) => [a.allocate(), a.allocate(), a.allocate()]))));
  }
  expect(new Set(ids).size).toBe(ids.length);
  const docs = await blocks.find({ sequence: 'lead' }).sort({ block: 1 }).toArray();
  docs.forEach((d, i) => {
    if (i > 0) expect(d.first).toBe(docs[i - 1]!.end);
  });
});
