import { loadConfig } from '../shared/config';
import { connectMongo } from '../shared/mongo/client';
import { loadStatuses } from '../shared/status-catalog';
import { rebuildLists, type ListRebuildSummary } from '../shared/store/list-rebuild';

// `npm run manager -- rebuild-lists`: lists every stored lead, delivery and audit entry again, in
// this process, straight against the store of the service's own configuration (after an upgrade
// from a version without list read models; safe to run again at any time).
export async function rebuildListsCommand(env: NodeJS.ProcessEnv): Promise<ListRebuildSummary> {
  const config = loadConfig(env);
  const statuses = loadStatuses(config.rules.statusCatalogFile);
  const mongo = await connectMongo(config);
  try {
    return await rebuildLists(
      mongo.collections,
      (s) => statuses.isTerminal(s),
      (m) => process.stderr.write(`${m}\n`),
    );
  } finally {
    await mongo.client.close();
  }
}
