import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

// Ports are drawn below the kernel's ephemeral range. A port from listen(0) lies inside it, where any
// outgoing connection of the run (a Kafka client, a driver's pool) may take it as its own local port
// before the server it was chosen for binds it: a Kafka controller once failed to start on
// "Address already in use" that way. Below the range only a server that binds the port can take it.
const LOWEST = 10_000;
const EPHEMERAL_START = ephemeralStart();

function ephemeralStart(): number {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(first) && first > LOWEST + 1000 ? first : 32_768;
  } catch {
    return 32_768; // Linux's default start, where /proc is not there
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

// A loopback port nothing listens on right now (for servers a test or benchmark starts itself).
export async function freePort(): Promise<number> {
  for (;;) {
    const port = LOWEST + Math.floor(Math.random() * (EPHEMERAL_START - LOWEST));
    if (await canListen(port)) return port;
  }
}
