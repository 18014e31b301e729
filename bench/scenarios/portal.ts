import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { Pool } from 'undici';
import { PiiCipher } from '../../src/shared/crypto/pii-cipher';
import { connectMongo } from '../../src/shared/mongo/client';
import { loadConfig } from '../../src/shared/config';
import { sign } from '../../src/shared/crypto/signature';
import { deliveryId } from '../../src/shared/ids';
import { logDirOf, type BenchContext, type ScenarioResult } from '../lib/context';
import { MANAGER_TOKEN, scenarioEnv, servicesEnv } from '../lib/env';
import { DAYS, partnerId, seedLeads, type SeedLayout, type SeedResult } from '../lib/lead-seed';
import type { PartnerCreds } from '../lib/leads';
import { PORTAL_REALM, signedInSession } from '../lib/manager-session';
import { startRole, type RoleProcess } from '../lib/roles';
import { dropScenario } from '../lib/setup';
import { summarise, type Summary } from '../lib/stats';
import { json } from './manager-access';

// The partner portal's speed: `--views N` leads (1,000,000; 100,000 with --quick) over the
// last 30 days across 100 partners, seeded as `manager-views` seeds them (each lead's phone sealed
// with a stored data key, its external id's ref), then every call the portal's pages make on load,
// over HTTP on the ingress role (where the manager and the portal run) with a signed-in partner
// admin's lit_portal cookie, one request at a time over one keep-alive connection, as a browser
// would: for a big partner (10% of the leads), a typical one (~0.9%) and a small one (0.1%).
const PARTNERS = 100;
const AGENTS = 20;
const PASSWORD = 'portal bench passphrase';
const DAY_MS = 86_400_000;

// Partner 0 has 10% of the leads, partner 99 0.1%, the 98 others share the rest evenly; by a hash of
// its own (spread(n, k) for any k moves with the lead's status and country: one partner would hold one status).
function partnerIndex(n: number): number {
  let h = Math.imul(n ^ (n >>> 16), 0x45d9f3b);
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b);
  const x = ((h ^ (h >>> 16)) >>> 0) / 2 ** 32;
  return x < 0.1 ? 0 : x >= 0.999 ? 99 : 1 + Math.min(97, Math.floor(((x - 0.1) / 0.899) * 98));
}
const MEASURED: [string, number][] = [
  ['big partner (10%)', 0],
  ['typical partner (0.9%)', 1],
  ['small partner (0.1%)', 99],
];

interface Call {
  name: string;
  path(i: number): string;
  api?: true; // a partner API reporting call: signed with the partner's key, not the portal's cookie
}

// What the pages ask for on load (lists 50 rows at a time, as the pages ask); ids differ from one request to the next where a page shows one item.
function callsOf(leadNs: number[], partner: string, start: number): Call[] {
  const lead = (i: number) => `le-${leadNs[i % leadNs.length]}`;
  const day = new Date(start + 15 * DAY_MS);
  const deep = (i: number) => encodeURIComponent(`${new Date(day.getTime() + i * 60_000).toISOString()}|z`);
  const fixed = (name: string, path: string): Call => ({ name, path: () => path });
  return [
    fixed('session (every page)', '/portal/api/session'),
    fixed('overview, today', '/portal/api/overview?days=1'),
    fixed('overview, 7 days', '/portal/api/overview?days=7'),
    fixed('overview, 30 days', '/portal/api/overview?days=30'),
    fixed('overview CSV, 30 days', '/portal/api/overview.csv?days=30'),
    fixed('leads', '/portal/api/leads?limit=50'),
    fixed('leads, status=ftd', '/portal/api/leads?limit=50&status=ftd'),
    fixed(
      'leads, one day',
      `/portal/api/leads?limit=50&from=${day.toISOString()}&to=${new Date(day.getTime() + DAY_MS).toISOString()}`,
    ),
    fixed('leads, source=email', '/portal/api/leads?limit=50&source=email'),
    fixed('leads, country=DE (30%)', '/portal/api/leads?limit=50&country=DE'),
    fixed('leads, country=MT (0.5%, checked per entry)', '/portal/api/leads?limit=50&country=MT'),
    {
      name: 'leads, external_id',
      path: (i) => `/portal/api/leads?limit=50&external_id=ext-${leadNs[i % leadNs.length]}`,
    },
    { name: 'leads, a deep page (day 15 of 30)', path: (i) => `/portal/api/leads?limit=50&cursor=${deep(i)}` },
    { name: "a lead's timeline", path: (i) => `/portal/api/leads/${lead(i)}` },
    fixed('deliveries', '/portal/api/deliveries?limit=50'),
    fixed('deliveries, state=dead', '/portal/api/deliveries?limit=50&state=dead'),
    fixed('deliveries, event=lead.ftd', '/portal/api/deliveries?limit=50&event=lead.ftd'),
    { name: 'a delivery', path: (i) => `/portal/api/deliveries/${deliveryId(`${lead(i)}:0`, partner)}` },
    fixed('endpoints', '/portal/api/endpoints'),
    fixed('integration', '/portal/api/integration'),
    fixed('users', '/portal/api/users'),
    ...apiCallsOf(day),
  ];
}

// The partner API's reporting calls, as a partner's own tools would make them.
function apiCallsOf(day: Date): Call[] {
  const api = (name: string, path: string): Call => ({ name: `API: ${name}`, path: () => path, api: true });
  const today = new Date().toISOString().slice(0, 10);
  const daysAgo = (n: number) => new Date(Date.now() - n * DAY_MS).toISOString().slice(0, 10);
  return [
    api('leads', '/api/v1/leads?limit=50'),
    api('leads, status=ftd', '/api/v1/leads?limit=50&status=ftd'),
    api('leads, country=MT (0.5%, checked per entry)', '/api/v1/leads?limit=50&country=MT'),
    api('leads, sub_id none has (a whole scan step)', '/api/v1/leads?limit=50&sub_id=none'),
    api(
      'leads, one day',
      `/api/v1/leads?limit=50&from=${day.toISOString()}&to=${new Date(day.getTime() + DAY_MS).toISOString()}`,
    ),
    api('reports, 7 days', `/api/v1/reports?from=${daysAgo(6)}&to=${today}`),
    api('reports, 30 days', `/api/v1/reports?from=${daysAgo(29)}&to=${today}`),
  ];
}

// A GET signed as a partner signs one (over the empty body), or the portal's cookie.
function headersOf(call: Call, cookie: string, creds: PartnerCreds): Record<string, string> {
  if (!call.api) return { cookie };
  return {
    authorization: `Bearer ${creds.api_key}`,
    'x-signature': sign(creds.hmac_secret, Buffer.alloc(0)),
    'x-timestamp': String(Math.floor(Date.now() / 1000)),
  };
}

// `count` of the partner's lead numbers spread over the whole range.
function leadsOfPartner(index: number, stored: number, count: number): number[] {
  const all: number[] = [];
  for (let n = 1; n <= stored; n++) if (partnerIndex(n) === index) all.push(n);
  const step = Math.max(1, Math.floor(all.length / count));
  return all.filter((_, k) => k % step === 0).slice(0, count);
}

// One GET as the page's fetch makes it: its time to the last byte, and the rows a list answered.
async function timedGet(
  pool: Pool,
  path: string,
  headers: Record<string, string>,
): Promise<{ ms: number; rows: number }> {
  const t = performance.now();
  const res = await pool.request({ method: 'GET', path, headers });
  const text = await res.body.text();
  const ms = performance.now() - t;
  if (res.statusCode !== 200) throw new Error(`GET ${path} answered ${res.statusCode}`);
  const items = res.headers['content-type']?.includes('json')
    ? (JSON.parse(text) as { items?: unknown[] }).items
    : undefined;
  return { ms, rows: Array.isArray(items) ? items.length : 1 };
}

const KEPT_ENV = ['MONGO_URL', 'MONGO_DB', 'ENCRYPTION_KEYS', 'HASH_KEY'] as const;

// A seed kept for another run (--keep-seed FILE): its database and the keys its data was sealed and hashed with.
interface KeptSeed {
  env: Record<(typeof KEPT_ENV)[number], string>;
  start: number;
  stored: number;
  seeded: SeedResult;
}

function keptSeed(file: string | null, mongoUrl: string | undefined): KeptSeed | null {
  if (!file || !existsSync(file)) return null;
  const kept = JSON.parse(readFileSync(file, 'utf8')) as KeptSeed;
  if (kept.env.MONGO_URL !== mongoUrl) throw new Error(`${file} was seeded on ${kept.env.MONGO_URL}, not ${mongoUrl}`);
  return kept;
}

export async function portalScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const { opts } = ctx;
  const kept = keptSeed(opts.keepSeed, servicesEnv().MONGO_URL);
  const { env, tag } = scenarioEnv('portal', opts.logLevel, kept?.env);
  const stored = kept?.stored ?? opts.viewDocs;
  const requests = opts.quick ? 40 : 100;
  const config = loadConfig({ ...env, ROLE: 'processor' });
  const mongo = await connectMongo(config);
  // The last 30 days up to now: the overview reads today and the days before it.
  const start = kept?.start ?? Date.now() - DAYS * DAY_MS;
  const data: Record<string, unknown> = { leads: stored, partners: PARTNERS, requestsPerCall: requests };
  let app: RoleProcess | null = null;
  let pool: Pool | null = null;
  try {
    const layout: SeedLayout = {
      stored,
      start,
      partners: PARTNERS,
      partnerOf: (n) => partnerId(partnerIndex(n)),
      agentOf: (n) => `ag-${String(n % AGENTS).padStart(16, '0')}`,
      partnerFacing: { keyring: new PiiCipher(config.crypto.encryptionKeys, config.crypto.activeKeyId) },
    };
    if (kept)
      ctx.log(
        `portal: measuring the ${stored} leads kept in ${opts.keepSeed} (seeded ${new Date(kept.start + DAYS * DAY_MS).toISOString()})`,
      );
    const seeded = kept?.seeded ?? (await seedLeads(mongo, layout, (msg) => ctx.log(`portal: ${msg}`)));
    Object.assign(data, seeded);
    if (opts.keepSeed && !kept) {
      const keptEnv = Object.fromEntries(KEPT_ENV.map((k) => [k, env[k] as string])) as KeptSeed['env'];
      const keep: KeptSeed = { env: keptEnv, start, stored, seeded };
      writeFileSync(opts.keepSeed, JSON.stringify(keep));
    }
    // The reporting calls are asked far more often than a partner may: no quota in the way.
    await mongo.collections.partners.updateMany({}, { $set: { rate_limits: { status_per_minute: 100_000 } } });
    app = await startRole('ingress', env, { logDir: logDirOf(ctx, 'portal'), nodeOptions: opts.nodeOptions });
    pool = new Pool(app.url, { connections: 1, pipelining: 1 });
    const rows: (string | number)[][] = [];
    const results: Record<string, Record<string, Summary & { rows: number }>> = {};
    for (const [label, index] of MEASURED) {
      const partner = partnerId(index);
      const invited = await json<{ link: { token: string } }>(
        pool,
        'POST',
        `/api/affiliates/${partner}/portal-invitations`,
        { authorization: `Bearer ${MANAGER_TOKEN}` },
        { email: `admin-${index}-${tag}@partner.example`, name: `Admin ${index}` },
        201,
      );
      const { cookie } = await signedInSession(pool, invited.link.token, PASSWORD, PORTAL_REALM);
      // The seeded partner's key and secret are placeholders: real ones for its reporting calls.
      const creds = await json<PartnerCreds>(
        pool,
        'POST',
        `/api/affiliates/${partner}/rotate-key`,
        { authorization: `Bearer ${MANAGER_TOKEN}` },
        { secrets: ['hmac_secret'] },
        200,
      );
      const leadNs = leadsOfPartner(index, stored, requests);
      const calls = callsOf(leadNs, partner, start);
      const get = (call: Call, i: number) => timedGet(pool!, call.path(i), headersOf(call, cookie, creds));
      for (const call of calls) for (let i = 0; i < 5; i++) await get(call, i); // warm-up
      results[label] = {};
      for (const call of calls) {
        const ms: number[] = [];
        let answered = 0;
        for (let i = 0; i < requests; i++) {
          const got = await get(call, i);
          ms.push(got.ms);
          answered += got.rows;
        }
        const s = summarise(ms);
        results[label]![call.name] = { ...s, rows: Math.round(answered / requests) };
        rows.push([label, call.name, s.n, Math.round(answered / requests), s.p50, s.p99, s.max]);
        ctx.log(`portal: ${label}: ${call.name}: p50 ${s.p50} ms, p99 ${s.p99} ms`);
      }
      data[`${label} leads`] = leadNs.length;
    }
    data.calls = results;
    return {
      name: 'portal',
      title: 'Partner portal over a million leads',
      data,
      notes: [],
      tables: [
        {
          title: `Portal API calls with ${stored.toLocaleString('en')} leads across ${PARTNERS} partners (target: p99 < 200 ms)`,
          columns: ['partner', 'call', 'requests', 'rows', 'p50 ms', 'p99 ms', 'max ms'],
          rows,
          note: "GET /portal/api/... over HTTP on the ingress role with a partner admin's lit_portal cookie (API: GET /api/v1/... signed with the partner's key), one request at a time over one keep-alive connection",
        },
      ],
    };
  } finally {
    await pool?.close();
    await app?.stop();
    await mongo.client.close();
    await dropScenario(env, { database: opts.keepSeed !== null });
  }
}
