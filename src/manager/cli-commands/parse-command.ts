import { parseArgs } from 'node:util';
import { ServiceError } from '../../shared/errors';
import type { CliRequest, Kind } from './command-shape';
import { COMMANDS } from './commands';

// The operator's command line, as pure argument handling: `<command> [id] [--flags]` becomes the
// HTTP request the manager API expects. cli.ts sends it.
export class UsageError extends ServiceError {
  constructor(message: string) {
    super('usage', message, { retriable: false });
  }
}

export function parseCommand(argv: readonly string[]): CliRequest {
  const [name, ...rest] = argv;
  const command = name === undefined ? undefined : COMMANDS[name];
  if (!command) throw new UsageError(name ? `unknown command "${name}"` : 'no command given');
  const flags = command.flags ?? {};
  const options = Object.fromEntries(Object.keys(flags).map((f) => [f, { type: 'string' as const }]));
  if (command.sends === 'body') Object.assign(options, { json: { type: 'string' as const } });
  let parsed;
  try {
    parsed = parseArgs({ args: [...rest], options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${name}: ${(err as Error).message}`);
  }
  const [id, ...extra] = parsed.positionals;
  if (command.needsId && !id) throw new UsageError(`${name} needs the ${command.needsId}`);
  if (extra.length > 0 || (!command.needsId && id))
    throw new UsageError(`${name}: unexpected argument "${extra[0] ?? id}"`);

  const fields: Record<string, unknown> = {};
  for (const [flag, def] of Object.entries(flags)) {
    const raw = parsed.values[flag];
    if (typeof raw === 'string') setPath(fields, def.field, convert(flag, def.kind, raw));
  }
  const path = command.path(id ?? '');
  if (command.sends === 'query') return { method: command.method, path: withQuery(path, fields) };
  const json = parsed.values.json;
  const body = typeof json === 'string' ? { ...fields, ...jsonObject('json', json) } : fields;
  return command.sends === 'body' ? { method: command.method, path, body } : { method: command.method, path };
}

function convert(flag: string, kind: Kind, raw: string): unknown {
  switch (kind) {
    case 'text':
      return raw;
    case 'nullable-text':
      return raw === 'none' || raw === '' ? null : raw;
    case 'list':
      return raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    case 'json':
      return jsonObject(flag, raw);
    case 'nullable-int':
      return raw === 'none' || raw === '' ? null : convert(flag, 'int', raw);
    case 'int': {
      const n = Number(raw);
      if (!Number.isInteger(n)) throw new UsageError(`--${flag} must be a whole number, got "${raw}"`);
      return n;
    }
    case 'bool':
      if (raw !== 'true' && raw !== 'false') throw new UsageError(`--${flag} must be true or false, got "${raw}"`);
      return raw === 'true';
  }
}

function jsonObject(flag: string, raw: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new UsageError(`--${flag} must be a JSON object, got "${raw}"`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new UsageError(`--${flag} must be a JSON object`);
  return value as Record<string, unknown>;
}

function setPath(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const keys = dotted.split('.');
  const last = keys.pop() as string;
  let node = target;
  for (const key of keys) node = (node[key] ??= {}) as Record<string, unknown>;
  node[last] = value;
}

function withQuery(path: string, fields: Record<string, unknown>): string {
  const query = new URLSearchParams(
    Object.entries(fields).map(([k, v]): [string, string] => [k, String(v)]),
  ).toString();
  return query ? `${path}?${query}` : path;
}
