import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { opsTools } from './ops-tools';
import { runCommand, SDKS, type Run } from './sdk-runs';

const PARTNERS_MD = join(__dirname, '..', '..', 'docs', 'partners.md');

// The examples of docs/partners.md's SDK section, each under "### <language> <example>".
export type Example = 'quickstart' | 'reporting';

// The code block under "### <language> <example>" in docs/partners.md, exactly as the page shows it.
export function docExample(language: string, example: Example, fence: string): string {
  const page = readFileSync(PARTNERS_MD, 'utf8');
  const at = page.indexOf(`### ${language} ${example}\n`);
  const block = at < 0 ? null : new RegExp('```' + fence + '\\n([\\s\\S]*?)\\n```').exec(page.slice(at));
  if (!block) throw new Error(`docs/partners.md has no ${language} ${example} with a ${fence} block`);
  return `${block[1]}\n`;
}

// Runs an example as a user of the package would: the TypeScript one as an ES module importing the built
// package by its name, the Python one with the package on the path, the PHP one after `composer install`
// of the package from its directory (no registry needed).
export async function runDocExample(language: string, example: Example, env: Record<string, string>): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), `${example}-`));
  try {
    return await runIn(dir, language, example, env);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runIn(dir: string, language: string, example: Example, env: Record<string, string>): Promise<Run> {
  if (language === 'TypeScript') {
    mkdirSync(join(dir, 'node_modules', '@lead-intake'), { recursive: true });
    symlinkSync(join(SDKS, 'typescript'), join(dir, 'node_modules', '@lead-intake', 'sdk'));
    writeFileSync(join(dir, `${example}.mjs`), docExample(language, example, 'js'));
    return runCommand(process.execPath, [`${example}.mjs`], { cwd: dir, env });
  }
  if (language === 'Python') {
    writeFileSync(join(dir, `${example}.py`), docExample(language, example, 'python'));
    return runCommand('python3', [`${example}.py`], {
      cwd: dir,
      env: { ...env, PYTHONPATH: join(SDKS, 'python', 'src') },
    });
  }
  const composer = {
    repositories: [{ type: 'path', url: join(SDKS, 'php') }, { 'packagist.org': false }],
    require: { 'lead-intake/sdk': '*@dev' },
  };
  writeFileSync(join(dir, 'composer.json'), JSON.stringify(composer));
  const tools = opsTools();
  const installed = await runCommand(tools.COMPOSER_BIN, ['install', '--no-interaction', '--no-progress'], {
    cwd: dir,
    env: { COMPOSER_HOME: join(dir, '.composer') },
  });
  if (installed.code !== 0) return installed;
  writeFileSync(join(dir, `${example}.php`), docExample(language, example, 'php'));
  return runCommand(tools.PHP_BIN, [`${example}.php`], { cwd: dir, env });
}
