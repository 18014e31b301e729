import { readFileSync } from 'node:fs';
import type { Redis } from './client';

export type LuaScript = (keys: readonly string[], args: readonly (string | number)[]) => Promise<unknown>;

// Registers a documented .lua file as a command on this connection: ioredis sends EVALSHA and falls
// back to EVAL once per connection, and prefixes the KEYS like any other command's keys. Files of
// shared Lua functions are put in front of the script (`parts`), so two scripts never restate one.
// `numberOfKeys` 'any': each call passes as many keys as it has (a script over a chunk's keys).
export function luaScript(
  redis: Redis,
  name: string,
  file: string,
  numberOfKeys: number | 'any',
  parts: readonly string[] = [],
): LuaScript {
  if (!(name in redis))
    redis.defineCommand(name, {
      ...(numberOfKeys !== 'any' && { numberOfKeys }),
      lua: [...parts, file].map((f) => readFileSync(f, 'utf8')).join('\n'),
    });
  const command = (redis as unknown as Record<string, (...a: (string | number)[]) => Promise<unknown>>)[name];
  if (!command) throw new Error(`lua script ${name} did not register`);
  if (numberOfKeys === 'any') return (keys, args) => command.call(redis, keys.length, ...keys, ...args);
  return (keys, args) => command.call(redis, ...keys, ...args);
}
