import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  readFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';

// The roles run as plain JavaScript, as in production (`node dist/main.js <role>`), not through the
// tsx loader, so their RSS and CPU profiles are the service's own. src/ and bench/ are transpiled
// file by file with esbuild (no bundling, no type check: `npm run typecheck` does that) into
// bench/.build, which mirrors the repository so every path the code derives from __dirname
// (schemas/, topics/, the .lua and .txt files) resolves as it does from dist/. test/unit/bench-build.test.ts
// checks that every relative require of the output resolves.
export const ROOT = join(__dirname, '..', '..');
export const BUILD_DIR = join(ROOT, 'bench', '.build');

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === '.build' || name === 'results' || name === 'node_modules') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else out.push(path);
  }
  return out;
}

export async function buildForBench(log: (s: string) => void = () => undefined): Promise<string> {
  // The one test helper the bench shares (tests and bench pick their ports the same way).
  const sources = [
    ...walk(join(ROOT, 'src')),
    ...walk(join(ROOT, 'bench')),
    join(ROOT, 'test', 'support', 'free-port.ts'),
  ];
  const ts = sources.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  const assets = sources.filter((f) => f.endsWith('.lua') || f.endsWith('.txt'));
  const newest = Math.max(...sources.map((f) => statSync(f).mtimeMs));
  const stamp = join(BUILD_DIR, '.stamp');
  const fingerprint = `${ts.length}:${assets.length}:${newest}`;
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === fingerprint) return BUILD_DIR;

  const started = Date.now();
  rmSync(BUILD_DIR, { recursive: true, force: true });
  mkdirSync(BUILD_DIR, { recursive: true });
  // esbuild comes with tsx (a devDependency); tsc is the fallback.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const esbuild = require('esbuild') as typeof import('esbuild');
  await esbuild.build({
    entryPoints: ts,
    outbase: ROOT,
    outdir: BUILD_DIR,
    format: 'cjs',
    platform: 'node',
    target: 'node22', // package.json's engines: the oldest node the roles may run on
    sourcemap: false,
    logLevel: 'error',
  });
  for (const f of assets) {
    const target = join(BUILD_DIR, relative(ROOT, f));
    mkdirSync(dirname(target), { recursive: true });
    cpSync(f, target);
  }
  for (const dir of ['schemas', 'topics']) symlinkSync(join(ROOT, dir), join(BUILD_DIR, dir));
  writeFileSync(stamp, fingerprint);
  log(`built src/ and bench/ into ${relative(ROOT, BUILD_DIR)} in ${Date.now() - started} ms`);
  return BUILD_DIR;
}

export const builtMain = (): string => join(BUILD_DIR, 'src', 'main.js');
export const builtBench = (name: string): string => join(BUILD_DIR, 'bench', `${name}.js`);
