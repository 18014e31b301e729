import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from '../../shared/logger';
import { serveBuiltApp } from '../../manager/console-static';

export const PORTAL_PATH = '/portal/';
// Built by scripts/build-console.mjs from src/portal/ui into dist/portal-ui (dist/portal holds this API
// once compiled): the same place from src/portal/api under tsx and from dist/portal/api after the build.
export const PORTAL_DIR = join(__dirname, '..', '..', '..', 'dist', 'portal-ui');

// The partner portal's pages, public like the console's: they hold no data and sign in against
// /portal/api. Served with the console's security headers (no inline code, no framing, this origin only).
export function registerPortal(app: FastifyInstance, logger: Logger, dir = PORTAL_DIR): Promise<void> {
  return serveBuiltApp(app, logger, { path: PORTAL_PATH, dir, name: 'partner portal' });
}
