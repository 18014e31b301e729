import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { CONSOLE_CSP, registerConsole } from '../../src/manager/console-static';
import { registerPortal } from '../../src/portal/api/portal-static';
import { createLogger } from '../../src/shared/logger';

const logger = createLogger('silent');

// Over a real socket: fastify's inject() loads an ESM-only module jest cannot require.
async function serve(
  dir: string,
  register = registerConsole,
): Promise<{ get: (path: string) => Promise<Response>; close: () => Promise<void> }> {
  const app = Fastify();
  await register(app, logger, dir);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { get: (path) => fetch(`${url}${path}`), close: () => app.close() };
}

// A browser that once reached the pages over HTTPS never again tries them over plain HTTP, for a year.
const HSTS = 'max-age=31536000';

describe('registerConsole', () => {
  it('serves each built file from memory with the security headers, the page at /console/', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'console-'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>c</title>');
    writeFileSync(join(dir, 'app.js'), 'export {};');
    writeFileSync(join(dir, 'notes.txt'), 'not a console file');
    const server = await serve(dir);
    const page = await server.get('/console/');
    expect(page.status).toBe(200);
    expect(
      Object.fromEntries(
        [
          'content-type',
          'content-security-policy',
          'x-frame-options',
          'referrer-policy',
          'strict-transport-security',
        ].map((h) => [h, page.headers.get(h)]),
      ),
    ).toEqual({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': CONSOLE_CSP,
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'strict-transport-security': HSTS,
    });
    expect(await page.text()).toBe('<!doctype html><title>c</title>');
    expect((await server.get('/console/app.js')).headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await server.get('/console/notes.txt')).status).toBe(404);
    expect((await server.get('/console/index.html')).status).toBe(404);
    await server.close();
  });

  it('serves nothing when the console was never built, and the rest of the app still starts', async () => {
    const server = await serve(join(tmpdir(), 'no-console-here'));
    expect((await server.get('/console/')).status).toBe(404);
    await server.close();
  });
});

describe('registerPortal', () => {
  it('serves the partner portal at /portal/ with the same security headers, its bare path redirected', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portal-'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>p</title>');
    const server = await serve(dir, registerPortal);
    const page = await server.get('/portal/');
    expect([
      page.status,
      page.headers.get('content-security-policy'),
      page.headers.get('strict-transport-security'),
      await page.text(),
    ]).toEqual([200, CONSOLE_CSP, HSTS, '<!doctype html><title>p</title>']);
    const bare = await fetch(page.url.replace('/portal/', '/portal'), { redirect: 'manual' });
    expect([bare.status, bare.headers.get('location')]).toEqual([302, '/portal/']);
    expect((await server.get('/console/')).status).toBe(404);
    await server.close();
  });
});
