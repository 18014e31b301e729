import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// The role matrix as docs/managers.md publishes it ("Roles"): its role columns, and per permission
// the routes it covers and the roles marked ✓.
export interface DocsMatrix {
  roles: string[];
  rows: { permission: string; routes: string[]; roles: string[] }[];
}

const cells = (line: string): string[] =>
  line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((c) => c.trim());
const unquote = (cell: string): string => cell.replace(/^`|`$/g, '');

export function docsMatrix(file = join(__dirname, '../../docs/managers.md')): DocsMatrix {
  const text = readFileSync(file, 'utf8');
  const section = text.slice(text.indexOf('\n### Roles\n'));
  const lines = section.split('\n');
  const header = lines.findIndex((l) => l.startsWith('| Permission | Routes |'));
  if (header < 0) throw new Error('docs/managers.md has no "| Permission | Routes | ..." table under "### Roles"');
  const roles = cells(lines[header]!).slice(2);
  const rows: DocsMatrix['rows'] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const [permission, routes, ...marks] = cells(line);
    rows.push({
      permission: unquote(permission!),
      routes: routes!
        .split(',')
        .map((r) => unquote(r.trim()))
        .filter(Boolean),
      roles: roles.filter((_, i) => marks[i] === '✓'),
    });
  }
  return { roles, rows };
}
