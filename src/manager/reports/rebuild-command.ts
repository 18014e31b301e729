import { rebuildReportsOf, type RebuildSummary } from '../../processor/commands';
import { loadConfig } from '../../shared/config';
import { createLogger } from '../../shared/logger';
import { connectMongo } from '../../shared/mongo/client';

// `npm run manager -- rebuild-reports`: the rebuild runs in this process, straight against the
// store named by the service's own configuration (a long job, not an HTTP request).
export async function rebuildReportsCommand(env: NodeJS.ProcessEnv): Promise<RebuildSummary> {
  const config = loadConfig(env);
  const mongo = await connectMongo(config);
  try {
    return await rebuildReportsOf({ mongo, logger: createLogger(config.logLevel) });
  } finally {
    await mongo.client.close();
  }
}
