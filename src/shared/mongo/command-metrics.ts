import { Counter, type Registry } from 'prom-client';
import type { MongoClient } from 'mongodb';

// The statements each command carries: documents inserted, updates and deletes.
const STATEMENTS = { insert: 'documents', update: 'updates', delete: 'deletes' } as const;
const COUNTED = new Set([
  'find',
  'getMore',
  'aggregate',
  'count',
  'distinct',
  'findAndModify',
  ...Object.keys(STATEMENTS),
]);

// Where the database's work comes from, by collection: the commands each role sends and the
// documents it writes (a document inserted, an update or a delete statement each), for operators and
// the bench (docs/benchmarks.md, "Documents per lead"). Needs the client created with monitorCommands.
export function countMongoCommands(client: MongoClient, registry: Registry): void {
  const commands = new Counter({
    name: 'lead_intake_mongo_commands_total',
    help: 'MongoDB commands sent, by command and collection',
    labelNames: ['command', 'collection'],
    registers: [registry],
  });
  const written = new Counter({
    name: 'lead_intake_mongo_documents_written_total',
    help: 'Documents written (inserted, or an update or delete statement), by command and collection',
    labelNames: ['command', 'collection'],
    registers: [registry],
  });
  client.on('commandStarted', ({ commandName, command }) => {
    const target = (command as Record<string, unknown>)[commandName];
    if (!COUNTED.has(commandName) || typeof target !== 'string') return;
    const labels = { command: commandName, collection: collectionLabel(target) };
    commands.inc(labels);
    const field = STATEMENTS[commandName as keyof typeof STATEMENTS];
    const statements = field ? (command as Record<string, unknown>)[field] : undefined;
    if (Array.isArray(statements)) written.inc(labels, statements.length);
  });
}

// Collections kept one per day or per period count under one name: intake_decisions_20261125 and
// dedup_claims_p692 are intake_decisions_* and dedup_claims_*.
export function collectionLabel(name: string): string {
  return name.replace(/_p?\d+$/, '_*');
}
