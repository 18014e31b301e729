import { MongoClient } from 'mongodb';

// The run's database goes with the run, whatever the tests left in it.
export default async function globalTeardown(): Promise<void> {
  const client = await MongoClient.connect(process.env.MONGO_URL as string, { serverSelectionTimeoutMS: 5000 });
  try {
    await client.db(process.env.STORE_TEST_DB).dropDatabase();
  } finally {
    await client.close();
  }
}
