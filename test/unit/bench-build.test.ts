import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { buildForBench, BUILD_DIR } from '../../bench/lib/build';

function jsFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === 'schemas' || name === 'topics') continue; // symlinks into the repository
    if (statSync(path).isDirectory()) jsFiles(path, out);
    else if (name.endsWith('.js')) out.push(path);
  }
  return out;
}

const resolves = (from: string, spec: string): boolean => {
  const base = resolve(dirname(from), spec);
  return [base, `${base}.js`, join(base, 'index.js')].some((p) => existsSync(p) && statSync(p).isFile());
};

// The benchmark runs the transpiled tree as plain node: a module it imports from outside src/ and
// bench/ that the build leaves out only shows as a crash of a benchmark process.
it('builds a bench tree in which every relative require resolves', async () => {
  await buildForBench();
  const missing: string[] = [];
  for (const file of jsFiles(BUILD_DIR)) {
    for (const [, spec = ''] of readFileSync(file, 'utf8').matchAll(/require\("(\.{1,2}\/[^"]+)"\)/g)) {
      if (!resolves(file, spec)) missing.push(`${file.slice(BUILD_DIR.length + 1)} -> ${spec}`);
    }
  }
  expect(missing).toEqual([]);
}, 60_000);
