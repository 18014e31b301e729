import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

// A TCP link to a real server that holds every chunk `delayMs` each way, in order: the network of a
// server further away, so that what another client does between two of our commands has time to land.
export interface SlowLink {
  url: (scheme: string) => string;
  close: () => Promise<void>;
}

export function slowLink(target: { host: string; port: number }, delayMs: number): Promise<SlowLink> {
  const sockets = new Set<Socket>();
  const server = createServer((near) => {
    const far = connect(target.port, target.host);
    for (const s of [near, far]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => near.destroy() && far.destroy());
    }
    const relay = (from: Socket, to: Socket) =>
      from.on('data', (chunk) => setTimeout(() => to.writable && to.write(chunk), delayMs));
    relay(near, far);
    relay(far, near);
    near.on('end', () => setTimeout(() => far.end(), delayMs));
    far.on('end', () => setTimeout(() => near.end(), delayMs));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: (scheme) => `${scheme}://127.0.0.1:${port}`,
        close: () =>
          new Promise((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
