import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from '../shared/logger';

export const CONSOLE_PATH = '/console/';
// Built by `npm run build` (scripts/build-console.mjs) into dist/console: the same place from src/manager
// under tsx and from dist/manager after the build.
export const CONSOLE_DIR = join(__dirname, '..', '..', 'dist', 'console');

// Nothing but our own files: no inline script or style, no other origin, no framing, no form posts.
// The page talks to the API on this origin only (the portal's pages too: the same policy).
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cache-control': 'no-cache',
  // HSTS: a browser that once reached the pages over HTTPS uses nothing else for a year (ignored over plain HTTP).
  'strict-transport-security': 'max-age=31536000',
};

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

// The manager console: the few built files, read once at start-up and served from memory. Not
// served when the console was never built; the API works without it.
export function registerConsole(app: FastifyInstance, logger: Logger, dir = CONSOLE_DIR): Promise<void> {
  return serveBuiltApp(app, logger, { path: CONSOLE_PATH, dir, name: 'manager console' });
}

// A browser app built by scripts/build-console.mjs (the console, the partner portal) at `path`: one
// route per file (so another method gets 405 with Allow, like every served path), the page at the
// path itself, and the path without its slash redirected to it.
export async function serveBuiltApp(
  app: FastifyInstance,
  logger: Logger,
  o: { path: string; dir: string; name: string },
): Promise<void> {
  if (!existsSync(join(o.dir, 'index.html'))) {
    logger.warn({ dir: o.dir }, `${o.name} not built (npm run build); ${o.path} is not served`);
    return;
  }
  for (const file of readdirSync(o.dir)) {
    const type = CONTENT_TYPES[extname(file)];
    if (!type) continue;
    const body = readFileSync(join(o.dir, file));
    const url = file === 'index.html' ? o.path : `${o.path}${file}`;
    app.get(url, { schema: { hide: true } }, async (_req, reply) =>
      reply.headers(SECURITY_HEADERS).type(type).send(body),
    );
  }
  app.get(o.path.slice(0, -1), { schema: { hide: true } }, async (_req, reply) => reply.redirect(o.path));
}
