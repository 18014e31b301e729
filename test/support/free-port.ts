import { createServer, type AddressInfo } from 'node:net';

// A loopback port nothing listens on right now (for servers a test or benchmark starts itself).
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
