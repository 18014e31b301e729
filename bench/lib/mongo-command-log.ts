import type { CommandFailedEvent, CommandStartedEvent, CommandSucceededEvent } from 'mongodb';

// Every command the MongoDB driver sends, timed by its shape (command monitoring).

export interface OpStats {
  count: number;
  ms: number[];
}

// A command's shape: name, collection, and the fields its filter names (`_id` alone is the one
// FerretDB may serve from an index), e.g. "find leads {pending_events}".
function shapeOf(e: CommandStartedEvent): string {
  const c = e.command as Record<string, unknown>;
  const name = e.commandName;
  const coll = String(c[name] ?? '');
  const keys = (f: unknown): string => {
    if (!f || typeof f !== 'object') return '';
    return `{${Object.entries(f as Record<string, unknown>)
      .map(([k, v]) =>
        v && typeof v === 'object' && !(v instanceof Date) && !Array.isArray(v)
          ? `${k}:${Object.keys(v as object).join(',')}`
          : k,
      )
      .join(' ')}}`;
  };
  if (name === 'find' || name === 'count' || name === 'findAndModify')
    return `${name} ${coll} ${keys(c.filter ?? c.query)}`;
  if (name === 'update' || name === 'delete') {
    const first = (c.updates ?? c.deletes) as { q?: unknown }[] | undefined;
    return `${name} ${coll} ${keys(first?.[0]?.q)}`;
  }
  if (name === 'aggregate')
    return `${name} ${coll} ${keys((c.pipeline as Record<string, unknown>[] | undefined)?.[0]?.$match)}`;
  return `${name} ${coll}`;
}

export class MongoCommandLog {
  private ops = new Map<string, OpStats>();
  private shapes = new Map<number, string>();
  failures = 0;
  started(e: CommandStartedEvent): void {
    this.shapes.set(e.requestId, shapeOf(e));
  }
  take(): Map<string, OpStats> {
    const ops = this.ops;
    this.ops = new Map();
    return ops;
  }
  ok(e: CommandSucceededEvent): void {
    if (
      e.commandName === 'endSessions' ||
      e.commandName === 'ping' ||
      e.commandName === 'hello' ||
      e.commandName === 'isMaster'
    )
      return;
    const key = this.shapes.get(e.requestId) ?? e.commandName;
    this.shapes.delete(e.requestId);
    const s = this.ops.get(key) ?? { count: 0, ms: [] };
    s.count++;
    s.ms.push(e.duration);
    this.ops.set(key, s);
  }
  failed(e: CommandFailedEvent): void {
    this.failures++;
    this.ok(e as unknown as CommandSucceededEvent); // duplicate-key inserts are part of the pattern
  }
}
