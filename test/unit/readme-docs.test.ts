import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { ERRORS } from '../../src/shared/errors';

// README.md is the front door and docs/ the reference, one page per reader: every configuration
// variable and every error code the code knows must be documented there, and every link between
// the pages must land on a page and a heading that exist.
const ROOT = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const readme = read('README.md');
const configSource = readdirSync(join(ROOT, 'src/shared/config'))
  .map((f) => read(join('src/shared/config', f)))
  .join('\n');
const pages = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f)),
];

// GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes.
const anchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');
const anchorsOf = (page: string) => new Set([...read(page).matchAll(/^#+ (.*)$/gm)].map((m) => anchor(m[1]!)));

describe('README.md and docs/', () => {
  const variables = [...configSource.matchAll(/r\.(?:string|int|bool|list|url)\('([A-Z0-9_]+)'/g)].map((m) => m[1]!);
  const operators = read('docs/operators.md');
  const errors = read('docs/errors.md');

  it('finds the configuration variables in src/shared/config/', () => expect(variables.length).toBeGreaterThan(30));

  it.each([...new Set(variables)])('documents the variable %s in the configuration table', (name) => {
    expect(operators).toMatch(new RegExp(`^\\| \`${name}\` \\|`, 'm'));
  });

  it.each(Object.entries(ERRORS))('documents the error %s with its HTTP status', (code, def) => {
    expect(errors).toMatch(new RegExp(`^\\| \`${code}\` \\| ${def.status} \\|`, 'm'));
  });

  it('opens with the two commands', () => {
    const firstBlock = readme.slice(0, 1500);
    expect(firstBlock).toContain('bash scripts/up.sh');
    expect(firstBlock).toContain('npm test');
  });

  it('keeps README a front door: at most 300 lines, linking every page of docs/', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    for (const page of pages.filter((p) => p !== 'README.md' && dirname(p) === 'docs'))
      expect(readme).toContain(`](${page}`);
  });

  it.each(pages)('%s links only to pages and headings that exist', (page) => {
    const broken = [...read(page).matchAll(/\]\(([^)\s]+)\)/g)]
      .map((m) => m[1]!)
      .filter((target) => {
        if (/^[a-z]+:/.test(target)) return false;
        const [path, fragment] = target.split('#') as [string, string | undefined];
        const dest = path ? normalize(join(dirname(page), path)) : page;
        if (!existsSync(join(ROOT, dest))) return true;
        return fragment !== undefined && dest.endsWith('.md') && !anchorsOf(dest).has(fragment);
      });
    expect(broken).toEqual([]);
  });
});
