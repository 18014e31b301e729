import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

// The TypeScript SDK's types are generated from the partner OpenAPI document: a change to the
// document the committed types do not follow fails here. The generator runs in a process of its own
// (its formatter loads ES modules, which jest's loader does not).
it('sdks/typescript/src/generated/partner-api.ts is what the partner document gives', () => {
  const root = join(__dirname, '..', '..');
  const run = spawnSync(process.execPath, [require.resolve('tsx/cli'), 'scripts/gen-sdk-types.ts', '--check'], {
    cwd: root,
    encoding: 'utf8',
  });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
});
