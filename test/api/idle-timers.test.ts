import { connectMongo, type Mongo } from '../../src/shared/mongo/client';
import { testConfig } from '../support/test-config';

// A process at rest wakes for nothing: the store's connection pool checks its minimum size (we keep
// none) only rarely, not every 100 ms as the driver does unless told otherwise. Counted on a real
// server while the client sits idle.
const ConnectionPool = require('mongodb/lib/cmap/connection_pool').ConnectionPool as {
  prototype: { ensureMinPoolSize(): void };
};
const ensure = ConnectionPool.prototype.ensureMinPoolSize;
let checks = 0;
let mongo: Mongo | undefined;

beforeAll(() => {
  ConnectionPool.prototype.ensureMinPoolSize = function counted(this: unknown) {
    checks++;
    return ensure.call(this);
  };
});

afterAll(async () => {
  ConnectionPool.prototype.ensureMinPoolSize = ensure;
  await mongo?.client.close();
});

it("leaves an idle store client's pool without a 100 ms timer, and still answers", async () => {
  mongo = await connectMongo(testConfig());
  expect((await mongo.db.command({ ping: 1 })).ok).toBe(1);
  checks = 0;
  await new Promise((r) => setTimeout(r, 1000));
  expect(checks).toBeLessThan(2); // unfixed: about 10
  expect((await mongo.db.command({ ping: 1 })).ok).toBe(1);
});
