import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveHelper } from './lib/roles';

// A fast partner callback endpoint in a process of its own (so its CPU is not the benchmark's):
// each path is one partner with its secret; it checks X-Signature as a partner would, answers at
// once, and records each arrival (time, lead, event, answer). A path may fail the first n attempts
// of every (lead, event) with 500, to exercise the retry schedule.
interface Route {
  secret: string;
  failFirst: number;
}

export interface Arrival {
  t: number; // epoch ms (fractional) when the request was complete
  path: string;
  lead: string;
  event: string;
  status: number;
  nth: number; // attempt number of this (lead, event) at this receiver
}

const routes = new Map<string, Route>();
const seen = new Map<string, number>();
let arrivals: Arrival[] = [];
let badSignatures = 0;
let unknownPath = 0;

const now = (): number => performance.timeOrigin + performance.now();

const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const t = now();
    const raw = Buffer.concat(chunks);
    const path = req.url ?? '/';
    const route = routes.get(path);
    if (!route) {
      unknownPath++;
      res.writeHead(404).end();
      return;
    }
    if (!verify(route.secret, raw, req.headers['x-signature'])) badSignatures++;
    let lead = '';
    let event = '';
    try {
      const body = JSON.parse(raw.toString('utf8')) as { internal_id?: string; event?: string };
      lead = body.internal_id ?? '';
      event = body.event ?? '';
    } catch {
      // counted as an arrival without a lead
    }
    const key = `${path}|${lead}|${event}`;
    const nth = (seen.get(key) ?? 0) + 1;
    seen.set(key, nth);
    const status = nth <= route.failFirst ? 500 : 200;
    arrivals.push({ t, path, lead, event, status, nth });
    res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'not yet');
  });
});
server.keepAliveTimeout = 30_000;

function verify(secret: string, raw: Buffer, header: string | string[] | undefined): boolean {
  if (typeof header !== 'string') return false;
  const given = Buffer.from(header.replace(/^sha256=/, ''), 'hex');
  const expected = createHmac('sha256', secret).update(raw).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const listening = new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

serveHelper(
  (msg) => {
    switch (msg.type) {
      case 'base':
        return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      case 'route':
        routes.set(String(msg.path), { secret: String(msg.secret), failFirst: Number(msg.failFirst ?? 0) });
        return true;
      case 'count':
        return {
          arrivals: arrivals.length,
          ok: arrivals.filter((a) => a.status === 200).length,
          badSignatures,
          unknownPath,
        };
      // With a path, that partner's alone: a large backlog's arrivals are not sent to be counted.
      case 'arrivals':
        return msg.path === undefined ? arrivals : arrivals.filter((a) => a.path === msg.path);
      case 'ok':
        return arrivals.filter((a) => a.status === 200 && a.path === msg.path).length;
      case 'reset':
        arrivals = [];
        seen.clear();
        badSignatures = 0;
        unknownPath = 0;
        return true;
      default:
        throw new Error(`unknown message ${String(msg.type)}`);
    }
  },
  {
    ready: listening,
    onStop: async () => {
      server.closeAllConnections();
    },
  },
);
