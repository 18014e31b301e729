import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERRORS } from '../../src/shared/errors';

// README.md is the contract partners, managers, CRM teams and operators read: every configuration
// variable and every error code the code knows must be documented there.
const ROOT = join(__dirname, '..', '..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const configSource = readFileSync(join(ROOT, 'src/shared/config.ts'), 'utf8');

describe('README.md', () => {
  const variables = [...configSource.matchAll(/r\.(?:string|int|bool|list|url)\('([A-Z0-9_]+)'/g)].map((m) => m[1]!);

  it('finds the configuration variables in config.ts', () => expect(variables.length).toBeGreaterThan(30));

  it.each([...new Set(variables)])('documents the variable %s in the configuration table', (name) => {
    expect(readme).toMatch(new RegExp(`^\\| \`${name}\` \\|`, 'm'));
  });

  it.each(Object.entries(ERRORS))('documents the error %s with its HTTP status', (code, def) => {
    expect(readme).toMatch(new RegExp(`^\\| \`${code}\` \\| ${def.status} \\|`, 'm'));
  });

  it('opens with the two commands', () => {
    const firstBlock = readme.slice(0, 1500);
    expect(firstBlock).toContain('bash scripts/up.sh');
    expect(firstBlock).toContain('npm test');
  });
});
