import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The batch consumer's strategies (handled, handled with partitions merged, recorded) take only the
// options that make sense together: the others do not compile. Each set of options is compiled with the
// project's settings against the real BatchConsumerOptions, and the compiler's verdict is the outcome:
// none, or a refusal for the reason given.
const ROOT = join(__dirname, '..', '..');
const base = `{ group: 'g', topics: [], undecodable: async () => undefined, handle: async () => undefined`;

const cases: [string, string, string | null][] = [
  ['the defaults', '', null],
  ['co-partitioned', 'coPartitioned: true', null],
  ['partitions merged', 'mergePartitionsMs: 5', null],
  [
    'recorded, co-partitioned, bounded, handed over',
    "commit: 'recorded', coPartitioned: true, maxUncommitted: 10, handOver: async () => undefined",
    null,
  ],
  ['partitions merged and co-partitioned', 'mergePartitionsMs: 5, coPartitioned: true', "'coPartitioned'"],
  ['partitions merged with commit recorded', "mergePartitionsMs: 5, commit: 'recorded'", "property 'commit'"],
  ['a hand-over without commit recorded', 'handOver: async () => undefined', "'commit' is missing"],
  ['a bound on uncommitted offsets without commit recorded', 'maxUncommitted: 10', "'commit' is missing"],
];

// One compile for every case: a file of one constant a case, so each error falls on its own line. The
// compiler (TypeScript 7 has no JavaScript API) runs with the project's settings on that file alone.
function verdicts(): (string | null)[] {
  const dir = mkdtempSync(join(tmpdir(), 'batch-options-'));
  try {
    const file = join(dir, 'cases.ts');
    const consumer = join(ROOT, 'src', 'shared', 'kafka', 'batch-consumer');
    writeFileSync(
      file,
      [
        `import type { BatchConsumerOptions } from ${JSON.stringify(consumer)};`,
        ...cases.map(
          ([, opts], i) => `export const c${i}: BatchConsumerOptions<unknown> = ${base}${opts ? `, ${opts}` : ''} };`,
        ),
      ].join('\n'),
    );
    const config = {
      extends: join(ROOT, 'tsconfig.json'),
      compilerOptions: {
        noEmit: true,
        rootDir: '/',
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules', '@types')],
      },
      files: [file],
      include: [],
    };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(config));
    const run = spawnSync(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', dir, '--pretty', 'false'], {
      encoding: 'utf8',
    });
    const byLine = new Map<number, string>();
    for (const m of run.stdout.matchAll(/cases\.ts\((\d+),\d+\): error (TS\d+: .*(?:\n {2,}.*)*)/g))
      byLine.set(Number(m[1]), `${byLine.get(Number(m[1])) ?? ''}${m[2]}`);
    // Errors anywhere else (a settings or import problem) are no verdict on the cases.
    expect(run.stdout.replace(/^.*cases\.ts\(.*$|^ {2,}.*$/gm, '').trim()).toBe('');
    return cases.map((_, i) => byLine.get(i + 2) ?? null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const found = verdicts();

it.each(cases.map(([name, , refused], i) => [name, refused, i] as const))(
  'compiles only options that go together: %s',
  (_name, refused, i) => {
    if (refused === null) return expect(found[i]).toBeNull();
    expect(found[i]).toContain("is not assignable to type 'BatchConsumerOptions<unknown>'");
    expect(found[i]).toContain(refused);
  },
);
