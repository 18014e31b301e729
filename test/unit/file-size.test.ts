import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// A module with one idea stays short: no module of src or bench over 300 lines (CONTRIBUTING.md).
// Generated files are the schemas' size, not a module's; a test file is split by what it tests.
const ROOT = join(__dirname, '..', '..');
const MAX_LINES = 300;

it('keeps every module of src and bench at most 300 lines', () => {
  const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'src', 'bench'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const long = tracked
    .split('\n')
    .filter((file) => /\.(ts|tsx|js|mjs)$/.test(file) && !file.includes('.generated.'))
    .filter((file) => existsSync(join(ROOT, file))) // tracked, deleted in the work tree
    .map((file) => ({ file, lines: readFileSync(join(ROOT, file), 'utf8').split('\n').length - 1 }))
    .filter((f) => f.lines > MAX_LINES);
  expect(long).toEqual([]);
});
