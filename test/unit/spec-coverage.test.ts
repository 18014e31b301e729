import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSync } from '@swc/core';

// docs/spec-coverage.md maps every table row of the interface specification and every choice of
// docs/decisions.md to the tests that hold it. This holds the page to both: a row or a choice
// without a line, a line for a row that is gone, or a test that does not exist fails here. The
// specification is read from the checkout's copy (docs/contract/SPEC.md), so a clone checks it alone;
// where shared/SPEC.md is beside the checkout, the copy must be the same.
const ROOT = join(__dirname, '..', '..');
const SPEC = join(ROOT, 'docs', 'contract', 'SPEC.md');
const BESIDE = join(ROOT, '..', 'shared', 'SPEC.md');
const read = (path: string) => readFileSync(path, 'utf8');

interface Row {
  key: string;
  cells: string[];
}

// The data rows of every table, under the heading they follow (several tables under one heading
// run on as one list). A row's key is its first cell, as written.
function tablesByHeading(markdown: string, headingLevels = /^#{1,6} (.+)$/): Map<string, Row[]> {
  const tables = new Map<string, Row[]>();
  const lines = markdown.split('\n');
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const title = headingLevels.exec(line);
    if (title) heading = title[1]!.trim();
    const isTableStart = line.startsWith('|') && /^\|[\s:|-]+$/.test(lines[i + 1] ?? '');
    if (!isTableStart) continue;
    const rows = tables.get(heading) ?? [];
    for (i += 2; i < lines.length && lines[i]!.startsWith('|'); i++) {
      const cells = lines[i]!.split('|')
        .slice(1, -1)
        .map((c) => c.trim());
      rows.push({ key: cells[0]!, cells });
    }
    tables.set(heading, rows);
  }
  return tables;
}

// `file` › `title` references in a cell; a title is a code span (doubled backticks when it holds one).
function referencesIn(cell: string): { file: string; title: string }[] {
  return [...cell.matchAll(/`(test\/[\w./-]+\.test\.ts)` › (`+) ?(.+?) ?\2(?!`)/g)].map((m) => ({
    file: m[1]!,
    title: m[3]!,
  }));
}

// A template title's ${…} parts match whatever they hold.
const sameTitle = (title: string) => title.replace(/\$\{[^}]*\}/g, '${}');

type Node = { type?: string; [key: string]: unknown };
const isTestCallee = (e: Node | undefined): boolean => {
  if (e?.type === 'Identifier') return e.value === 'it' || e.value === 'test';
  if (e?.type === 'MemberExpression') return isTestCallee(e.object as Node); // it.only, it.each, test.skip
  if (e?.type === 'CallExpression') return isTestCallee(e.callee as Node); // it.each(table)(title, fn)
  return false;
};
const titleOf = (arg: Node | undefined): string | undefined => {
  if (arg?.type === 'StringLiteral') return arg.value as string;
  if (arg?.type === 'TemplateLiteral')
    return (arg.quasis as { cooked?: string; raw: string }[]).map((q) => q.cooked ?? q.raw).join('${}');
  return undefined;
};

// The titles of a test file's it(...) and test(...) calls, it.each included, from its syntax tree.
function testTitles(source: string): Set<string> {
  const titles = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (!value || typeof value !== 'object') return;
    const node = value as Node;
    const callee = node.callee as Node | undefined;
    const isEachTable = callee?.type === 'MemberExpression' && (callee.property as Node).value === 'each';
    if (node.type === 'CallExpression' && isTestCallee(callee) && !isEachTable) {
      const title = titleOf((node.arguments as { expression: Node }[])[0]?.expression);
      if (title !== undefined) titles.add(title);
    }
    Object.values(node).forEach(visit);
  };
  visit(parseSync(source, { syntax: 'typescript' }));
  return titles;
}

const spec = tablesByHeading(read(SPEC));
const decisions = [...tablesByHeading(read(join(ROOT, 'docs', 'decisions.md'))).values()].flat();
const page = read(join(ROOT, 'docs', 'spec-coverage.md'));
const [specPart = '', decisionsPart = ''] = page.split(/^## docs\/decisions\.md$/m);
const pageSpec = tablesByHeading(specPart.split(/^## shared\/SPEC\.md$/m)[1] ?? '', /^### (.+)$/);
const pageDecisions = [...tablesByHeading(decisionsPart).values()].flat();
const pageRows = [...[...pageSpec.values()].flat(), ...pageDecisions];
const references = pageRows.flatMap((row) => referencesIn(row.cells.at(-1) ?? ''));
const files = [...new Set(references.map((r) => r.file))].sort();

describe('docs/contract/SPEC.md', () => {
  (existsSync(BESIDE) ? it : it.skip)('is the specification beside the checkout, unchanged', () => {
    expect(read(SPEC)).toBe(read(BESIDE));
  });
});

describe('docs/spec-coverage.md', () => {
  it.each([...spec.keys()])('has a line for every table row of SPEC.md "%s", in order', (heading) => {
    expect((pageSpec.get(heading) ?? []).map((r) => r.key)).toEqual(spec.get(heading)!.map((r) => r.key));
  });

  it('maps no heading SPEC.md does not have (or has no table under)', () => {
    expect([...pageSpec.keys()].filter((heading) => !spec.has(heading))).toEqual([]);
  });

  it('has a line for every choice of docs/decisions.md, in order', () => {
    expect(decisions.length).toBeGreaterThan(10);
    expect(pageDecisions.map((r) => r.key)).toEqual(decisions.map((r) => r.key));
  });

  it('names a test on every line, or says why none can hold the rule here', () => {
    const bare = pageRows.filter((r) => referencesIn(r.cells.at(-1) ?? '').length === 0);
    expect(bare.filter((r) => !/Not testable here: \w/.test(r.cells.at(-1) ?? '')).map((r) => r.key)).toEqual([]);
  });

  it.each(files)('names only tests that %s has', (file) => {
    expect(existsSync(join(ROOT, file))).toBe(true);
    const titles = new Set([...testTitles(read(join(ROOT, file)))].map(sameTitle));
    const named = references.filter((r) => r.file === file).map((r) => sameTitle(r.title));
    expect(named.filter((title) => !titles.has(title))).toEqual([]);
  });
});

describe('the test titles read from a file', () => {
  it('are those of it, test, their modifiers and each tables, a title on the next line included', () => {
    const source = [
      "it('plain', () => {});",
      'test(`template ${x} title`, () => {});',
      "it.each([[1], [2]])('each %s', () => {});",
      'it.each<string>([\n  "a",\n])(\n  "each on the next line %s",\n  () => {},\n);',
      'describe(\'a block\', () => { it.skip("skipped", () => {}); });',
      "expect(/re/.test('not a test')).toBe(true);",
    ].join('\n');
    expect([...testTitles(source)]).toEqual([
      'plain',
      'template ${} title',
      'each %s',
      'each on the next line %s',
      'skipped',
    ]);
  });

  it('find a title in a cell, in doubled backticks when it holds one', () => {
    expect(referencesIn('`test/unit/a.test.ts` › `one`<br>`test/unit/b.test.ts` › `` so `x` grows ``')).toEqual([
      { file: 'test/unit/a.test.ts', title: 'one' },
      { file: 'test/unit/b.test.ts', title: 'so `x` grows' },
    ]);
  });
});
