import { MongoClient } from 'mongodb';
import { storeKind } from './store-kind';

// Fails before any test when MONGO_URL is missing or does not answer, names the run's database
// (STORE_TEST_DB, dropped by global-teardown.ts) and tells the tests which server they face.
export default async function globalSetup(): Promise<void> {
  const url = process.env.MONGO_URL;
  if (!url)
    throw new Error(
      'MONGO_URL is not set: npm run test:store checks the server it names (the local store: MONGO_URL=mongodb://127.0.0.1:27017)',
    );
  process.env.STORE_TEST_DB ??= `store_contract_${Date.now()}_${process.pid}`;
  const client = await MongoClient.connect(url, { serverSelectionTimeoutMS: 5000 });
  try {
    const info = await client.db('admin').command({ buildInfo: 1 });
    process.env.STORE_KIND = storeKind(info);
    const version =
      info.ferretdbVersion === undefined
        ? `MongoDB ${String(info.version)}`
        : `FerretDB ${String(info.ferretdbVersion)} (as MongoDB ${String(info.version)})`;
    process.stdout.write(`\nstore contract: ${version}, database ${process.env.STORE_TEST_DB}\n`);
  } finally {
    await client.close();
  }
}
