import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/shared/config';

// Break-glass tokens are owner credentials: each holds at least 32 random bytes, checked when the config is
// read, and none ships in the repository.
const base = {
  ROLE: 'ingress',
  ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  HASH_KEY: randomBytes(32).toString('base64'),
};
const load = (tokens: string) => loadConfig({ ...base, MANAGER_TOKENS: tokens });

describe('MANAGER_TOKENS', () => {
  it('takes tokens of 32 random bytes or more, as hex or base64, with a prefix or not', () => {
    const tokens = [
      `mgr_${randomBytes(32).toString('hex')}`,
      randomBytes(32).toString('base64url'),
      randomBytes(32).toString('base64'),
    ];
    expect(load(tokens.join(',')).managerTokens).toEqual(tokens);
  });

  it.each([
    ['24 random bytes', `mgr_${randomBytes(24).toString('hex')}`],
    ['31 random bytes', randomBytes(31).toString('base64url')],
    ['a phrase', 'mgr_dev_only_token_change_me_0123456789'],
    ['one repeated character', `mgr_${'a'.repeat(64)}`],
  ])('refuses %s, naming the variable', (_what, token) => {
    expect(() => load(token)).toThrow(ConfigError);
    expect(() => load(token)).toThrow(/^Invalid configuration: MANAGER_TOKENS .*32 random bytes/);
  });

  it('ships none in clear in docker-compose.yml', () => {
    const compose = readFileSync(join(__dirname, '..', '..', 'docker-compose.yml'), 'utf8');
    expect(compose).toMatch(/MANAGER_TOKENS: \$\{MANAGER_TOKENS:\?/);
  });
});
