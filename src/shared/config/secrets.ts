import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { ConfigError } from '../errors';
import type { EnvReader } from './env-reader';
import type { Role } from './roles';

export interface CryptoConfig {
  readonly encryptionKeys: ReadonlyMap<string, Buffer>;
  readonly activeKeyId: string;
  // A key object: Node prepares a raw buffer key again on every HMAC.
  readonly hashKey: KeyObject;
}

// ENCRYPTION_KEYS (the keyring of personal data), ENCRYPTION_ACTIVE_KEY (the one new data is sealed
// with) and HASH_KEY (the keyed hashes that find a lead by its phone or e-mail without decrypting).
export function readCrypto(r: EnvReader): CryptoConfig {
  const encryptionKeys = parseKeyring('ENCRYPTION_KEYS', r.string('ENCRYPTION_KEYS'));
  const activeKeyId = r.string('ENCRYPTION_ACTIVE_KEY', [...encryptionKeys.keys()][0]);
  if (!encryptionKeys.has(activeKeyId))
    throw new ConfigError('ENCRYPTION_ACTIVE_KEY', `names no key in ENCRYPTION_KEYS ("${activeKeyId}")`);
  const hashKeyBytes = Buffer.from(r.string('HASH_KEY'), 'base64');
  if (hashKeyBytes.length < 32) throw new ConfigError('HASH_KEY', 'must be at least 32 bytes of base64');
  return { encryptionKeys, activeKeyId, hashKey: createSecretKey(hashKeyBytes) };
}

// Signs the console's session cookie: SESSION_SECRET, else derived from HASH_KEY.
export function readSessionSecret(r: EnvReader, hashKey: KeyObject): string {
  const sessionSecret = r.string(
    'SESSION_SECRET',
    createHmac('sha256', hashKey).update('session-cookie').digest('base64url'),
  );
  if (sessionSecret.length < 32) throw new ConfigError('SESSION_SECRET', 'must be at least 32 characters');
  return sessionSecret;
}

// Whether a break-glass token carries 32 random bytes or more: after an optional `name_` prefix, 64 hex digits or
// 43 base64 characters, not a phrase, and not one character repeated.
export function breakGlassStrong(token: string): boolean {
  const body = token.replace(/^[a-z]+_/, '');
  if (new Set(body).size < 10) return false;
  if (/^[0-9a-f]+$/i.test(body)) return body.length >= 64;
  return /^[A-Za-z0-9+/_-]+={0,2}$/.test(body) && body.replace(/=+$/, '').length >= 43;
}

// The manager API's break-glass owner tokens: required where the manager is hosted (with the ingress role).
export function readManagerTokens(r: EnvReader, roles: readonly Role[]): string[] {
  const managerTokens = r.list('MANAGER_TOKENS');
  if (roles.includes('ingress')) {
    if (managerTokens.length === 0) throw new ConfigError('MANAGER_TOKENS', 'is required for the ingress role');
    if (!managerTokens.every(breakGlassStrong))
      throw new ConfigError(
        'MANAGER_TOKENS',
        'each token needs 32 random bytes or more: 64 hex digits or 43 base64 characters (mgr_$(openssl rand -hex 32))',
      );
  }
  return managerTokens;
}

function parseKeyring(name: string, raw: string): Map<string, Buffer> {
  const keys = new Map<string, Buffer>();
  for (const entry of raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [id, material] = entry.split(':');
    if (!id || !material || !/^[A-Za-z0-9_-]{1,16}$/.test(id)) {
      throw new ConfigError(name, 'must be a comma-separated list of <key id>:<base64 32-byte key>');
    }
    const key = Buffer.from(material, 'base64');
    if (key.length !== 32) throw new ConfigError(name, `key "${id}" must be 32 bytes of base64`);
    keys.set(id, key);
  }
  if (keys.size === 0) throw new ConfigError(name, 'must hold at least one key');
  return keys;
}
