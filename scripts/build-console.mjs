// Builds the browser apps with esbuild: the manager console (src/console) into dist/console and the
// partner portal (src/portal/ui) into dist/portal-ui (dist/portal is its compiled API's), each one
// bundled app.js, its page and one stylesheet (the shared src/ui-kit/app.css, then the app's own
// styles when it has any). `npm run build` runs it; scripts/test.sh and scripts/up.sh too, so a fresh
// clone serves both. Well under a second.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Source folder, output folder, the page's title (the one page both share: src/ui-kit/index.html).
const APPS = [
  ['console', 'console', 'Lead intake console'],
  ['portal/ui', 'portal-ui', 'Partner portal'],
];

const page = readFileSync(join(root, 'src', 'ui-kit', 'index.html'), 'utf8');
for (const [from, to, title] of APPS) {
  const src = join(root, 'src', from);
  const out = join(root, 'dist', to);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  await build({
    entryPoints: [join(src, 'main.tsx')],
    outfile: join(out, 'app.js'),
    bundle: true,
    format: 'esm',
    minify: true,
    sourcemap: false,
    target: ['es2022'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: join(src, 'tsconfig.json'),
    logLevel: 'warning',
  });
  // An app's own favicon.svg, when it has one, goes with its page.
  const icon = join(src, 'favicon.svg');
  const hasIcon = existsSync(icon);
  if (hasIcon) writeFileSync(join(out, 'favicon.svg'), readFileSync(icon));
  const link = hasIcon ? '<link rel="icon" href="favicon.svg" type="image/svg+xml" />' : '';
  writeFileSync(join(out, 'index.html'), page.replaceAll('{{title}}', title).replace('{{icon}}', link));
  const own = join(src, 'app.css');
  const css = [join(root, 'src', 'ui-kit', 'app.css'), ...(existsSync(own) ? [own] : [])].map((f) =>
    readFileSync(f, 'utf8'),
  );
  writeFileSync(join(out, 'app.css'), css.join('\n'));
  console.log(`${to} built into ${out}`);
}
