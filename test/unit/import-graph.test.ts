import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

// The layout is the architecture: a role reaches another role only through its face of
// commands (`<role>/commands.ts`), shared code imports no role, and nothing imports in a cycle.
// The entry point (src/app.ts, src/main.ts, and src/role-deps.ts, which hands each role its part of
// the runtime) wires the roles and may import them whole; the console, the partner portal (its API and
// pages) and the ui-kit are over the manager's services and pure modules.
const SRC = resolve(__dirname, '..', '..', 'src');
const ENTRY = ['app', 'main', 'role-deps'];
const RUNTIME = join(SRC, 'shared', 'runtime.ts');
const ROLES = ['ingress', 'processor', 'dispatcher', 'manager', 'alerts'];
const OVER_MANAGER = ['console', 'portal', 'ui-kit'];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

function resolveImport(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const base = resolve(dirname(from), spec);
  for (const candidate of [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      /* next */
    }
  }
  return null;
}

const area = (file: string): string => {
  const [top] = relative(SRC, file).split('/');
  return top!.replace(/\.tsx?$/, '');
};

const graph = new Map<string, string[]>();
for (const file of files(SRC)) {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:import|export)\s[^'"]*?from\s+'([^']+)'/g)].map((m) => m[1]!);
  graph.set(
    file,
    specs.flatMap((s) => resolveImport(file, s) ?? []),
  );
}

it('lets a role reach another only through its commands face, and shared code reach no role', () => {
  const crossings: string[] = [];
  for (const [file, imports] of graph) {
    const from = area(file);
    if (ENTRY.includes(from)) continue;
    for (const target of imports) {
      const to = area(target);
      if (!ROLES.includes(to) || to === from || (OVER_MANAGER.includes(from) && to === 'manager')) continue;
      const face = relative(SRC, target) === `${to}/commands.ts`;
      if (from === 'shared' || !face) crossings.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
    }
  }
  expect(crossings).toEqual([]);
});

// The account base serves every realm (the manager's staff, a partner's people): it reaches the shared
// kernel alone, and each of its users (the manager, the portal) reaches it.
it('keeps identity on the shared kernel alone', () => {
  const reaching = [...graph]
    .filter(([file]) => area(file) === 'identity')
    .flatMap(([file, imports]) =>
      imports
        .filter((target) => !['identity', 'shared'].includes(area(target)))
        .map((target) => `${relative(SRC, file)} -> ${relative(SRC, target)}`),
    );
  expect(reaching).toEqual([]);
});

// A role is given the few clients and settings it uses (its *Deps), never the runtime's bag of all.
it('lets only the entry point reach the runtime', () => {
  const reaching = [...graph]
    .filter(([file, imports]) => !ENTRY.includes(area(file)) && imports.includes(RUNTIME))
    .map(([file]) => relative(SRC, file));
  expect(reaching).toEqual([]);
});

it('has no import cycle', () => {
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (file: string, path: string[]): void => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'open') {
      cycles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(SRC, f)).join(' -> '));
      return;
    }
    state.set(file, 'open');
    for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
    state.set(file, 'done');
  };
  for (const file of graph.keys()) visit(file, []);
  expect(cycles).toEqual([]);
});
