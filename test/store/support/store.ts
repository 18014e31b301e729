import { MongoClient, type Collection, type Db, type Document } from 'mongodb';
import type { StoreKind } from './store-kind';

// What a contract test works on: the run's database (global-setup.ts), opened with the driver options
// the service uses (src/shared/mongo/client.ts), and collections no other test of the run touches.
export const kind = process.env.STORE_KIND as StoreKind;
export const onFerretDb = kind === 'ferretdb';

export interface Store {
  client: MongoClient;
  db: Db;
  fresh<T extends Document>(name: string): Collection<T>;
  close(): Promise<void>;
}

let made = 0;

export async function openStore(): Promise<Store> {
  const client = await MongoClient.connect(process.env.MONGO_URL as string, {
    retryWrites: false,
    serverSelectionTimeoutMS: 5000,
  });
  const db = client.db(process.env.STORE_TEST_DB);
  return {
    client,
    db,
    fresh: <T extends Document>(name: string) => db.collection<T>(`${name}_${process.pid}_${++made}`),
    close: () => client.close(),
  };
}
