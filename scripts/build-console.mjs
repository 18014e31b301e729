// Builds the manager console (src/console, Preact) into dist/console with esbuild: one bundled
// app.js, the stylesheet and the page. `npm run build` runs it; scripts/test.sh and scripts/up.sh too,
// so a fresh clone serves the console. Takes well under a second.
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src', 'console');
const out = join(root, 'dist', 'console');

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
for (const file of ['index.html', 'app.css']) copyFileSync(join(src, file), join(out, file));
console.log(`console built into ${out}`);
