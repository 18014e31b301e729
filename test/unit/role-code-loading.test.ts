import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

// A processor or a dispatcher process never runs the manager, the portal, the alerts or the ingress:
// loading app.ts must not load their code (it was half of such a process's heap). Checked in a
// process of its own, whose module cache is Node's.
it("loads no role's code until that role starts", () => {
  const script = `
    require('./src/app.ts');
    const ours = Object.keys(require.cache).filter((f) => f.includes('/src/')).map((f) => f.split('/src/')[1]);
    process.stdout.write(JSON.stringify(ours));
  `;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
    cwd: join(__dirname, '..', '..'),
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`the child failed: ${run.stderr}`);
  const loaded = JSON.parse(run.stdout) as string[];
  expect(loaded).toContain('app.ts');
  for (const role of ['processor/', 'dispatcher/', 'ingress/', 'manager/', 'portal/', 'alerts/', 'identity/'])
    expect(loaded.filter((f) => f.startsWith(role))).toEqual([]);
});
