import { Redis } from 'ioredis';
import { Pool } from 'undici';
import { hashPassword, verifyPassword } from '../../src/identity/passwords';
import { logDirOf, type BenchContext, type ScenarioResult } from '../lib/context';
import { MANAGER_TOKEN, scenarioEnv } from '../lib/env';
import { signedInSession } from '../lib/manager-session';
import { cpuSecondsOf } from '../lib/proc';
import { startRole, type RoleProcess } from '../lib/roles';
import { dropScenario } from '../lib/setup';
import { r2, summarise, type Summary } from '../lib/stats';

// What people's accounts cost a manager request, on the ingress role that serves the
// manager API, one request at a time over one keep-alive connection:
// (a) a session check: the same cheap GET (one partner, a point read) with the session cookie of a
//     signed-in owner (the session read from Redis and its idle time renewed) and with the
//     break-glass bearer token (no I/O to authenticate), interleaved so both see the same store;
// (b) a sign-in: argon2id's hash and verification in this process (wall and CPU ms, the CPU of
//     every thread), and the password step of POST /api/auth/sign-in against the role (the role's
//     CPU per sign-in), for an account that exists and for emails that name none (the decoy).
// The affiliate manager's scoped lists are in `manager-views`, at its size.
const PASSWORD = 'correct horse battery staple';

export async function managerAccessScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const { opts } = ctx;
  const { env } = scenarioEnv('manageraccess', opts.logLevel);
  const pairs = opts.quick ? 1000 : 5000;
  const signIns = opts.quick ? 10 : 30;
  let app: RoleProcess | null = null;
  let pool: Pool | null = null;
  try {
    app = await startRole('ingress', env, {
      logDir: logDirOf(ctx, 'manager-access'),
      nodeOptions: ctx.opts.nodeOptions,
    });
    pool = new Pool(app.url, { connections: 1, pipelining: 1 });
    const bearer = { authorization: `Bearer ${MANAGER_TOKEN}` };
    const partner = await json<{ id: string }>(pool, 'POST', '/api/affiliates', bearer, { name: 'Access bench' }, 201);
    const account = await json<{ invitation: { token: string } }>(
      pool,
      'POST',
      '/api/accounts',
      bearer,
      { email: 'owner@bench.example', name: 'Bench owner', role: 'owner' },
      201,
    );
    const session = { cookie: (await signedInSession(pool, account.invitation.token, PASSWORD)).cookie };

    const path = `/api/affiliates/${partner.id}`;
    for (let i = 0; i < 300; i++) await timed(pool, path, i % 2 ? session : bearer); // warm-up
    const withSession: number[] = [];
    const withBearer: number[] = [];
    for (let i = 0; i < pairs; i++) {
      // Alternating which goes first, so neither always follows the other.
      const order = i % 2 === 0 ? [session, bearer] : [bearer, session];
      for (const headers of order)
        (headers === session ? withSession : withBearer).push(await timed(pool, path, headers));
    }
    const s = summarise(withSession);
    const b = summarise(withBearer);
    const redis = await redisRoundTrips(env.REDIS_URL as string, pairs);
    ctx.log(`manager-access: session p50 ${s.p50} p99 ${s.p99} ms; bearer p50 ${b.p50} p99 ${b.p99} ms`);

    const local = await passwordCost(signIns);
    ctx.log(
      `manager-access: argon2id hash ${local.hash.p50} ms, verify ${local.verify.p50} ms, ${local.verifyCpuMs} CPU ms a verification`,
    );
    const known = await signInCost(pool, app.pid, signIns, () => 'owner@bench.example');
    const unknown = await signInCost(pool, app.pid, signIns, (i) => `nobody-${i}@bench.example`);
    ctx.log(
      `manager-access: sign-in p50 ${known.ms.p50} ms (unknown email ${unknown.ms.p50} ms), the role's CPU ${known.cpuMs} ms a sign-in`,
    );

    const row = (name: string, x: Summary) => [name, x.n, x.p50, x.p99, x.mean];
    return {
      name: 'manager-access',
      title: 'Accounts: what a session check and a sign-in cost',
      data: {
        pairs,
        path: '/api/affiliates/{id}',
        session: s,
        bearer: b,
        redis,
        addedP50: r2(s.p50 - b.p50),
        addedP99: r2(s.p99 - b.p99),
        addedMean: r2(s.mean - b.mean),
        local,
        known,
        unknown,
      },
      notes: [],
      tables: [
        {
          title: `A cheap manager GET (one partner), ${pairs} of each interleaved, one at a time (target: a session adds < 0.5 ms p99)`,
          columns: ['authenticated by', 'requests', 'p50 ms', 'p99 ms', 'mean ms'],
          rows: [
            row('session cookie (its Redis read restarts the idle time: GETEX)', s),
            row('break-glass bearer token', b),
            ['added by the session', '', r2(s.p50 - b.p50), r2(s.p99 - b.p99), r2(s.mean - b.mean)],
            row('for scale: a Redis GETEX from the bench (the round trip a session check makes)', redis),
          ],
          note: 'client-side latency over one keep-alive connection to the ingress role',
        },
        {
          title: `A sign-in (argon2id m=19 MiB, t=2, p=1), ${signIns} each, one at a time`,
          columns: ['step', 'n', 'p50 ms', 'p99 ms', 'CPU ms each'],
          rows: [
            ['hashPassword, in process', local.hash.n, local.hash.p50, local.hash.p99, local.hashCpuMs],
            ['verifyPassword, in process', local.verify.n, local.verify.p50, local.verify.p99, local.verifyCpuMs],
            [
              "POST /api/auth/sign-in, an account (the role's CPU)",
              known.ms.n,
              known.ms.p50,
              known.ms.p99,
              known.cpuMs,
            ],
            [
              'POST /api/auth/sign-in, no such account (decoy)',
              unknown.ms.n,
              unknown.ms.p50,
              unknown.ms.p99,
              unknown.cpuMs,
            ],
          ],
          note: 'CPU: process.cpuUsage (every thread) in process; /proc CPU time of the role over the HTTP steps',
        },
      ],
    };
  } finally {
    await pool?.close();
    await app?.stop();
    await dropScenario(env);
  }
}

export async function json<T>(
  pool: Pool,
  method: 'POST' | 'GET',
  path: string,
  headers: Record<string, string>,
  body: unknown,
  expect: number,
): Promise<T> {
  const res = await pool.request({
    method,
    path,
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const parsed = (await res.body.json()) as T;
  if (res.statusCode !== expect)
    throw new Error(`${method} ${path} answered ${res.statusCode}: ${JSON.stringify(parsed)}`);
  return parsed;
}

export async function timed(pool: Pool, path: string, headers: Record<string, string>): Promise<number> {
  const t = performance.now();
  const res = await pool.request({ method: 'GET', path, headers });
  await res.body.text();
  if (res.statusCode !== 200) throw new Error(`GET ${path} answered ${res.statusCode}`);
  return performance.now() - t;
}

// What the session check asks of Redis: one read that restarts the idle time.
async function redisRoundTrips(url: string, n: number): Promise<Summary> {
  const redis = new Redis(url);
  const ms: number[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await redis.getex('bench:manager-access:session', 'PX', 1_800_000);
      ms.push(performance.now() - t);
    }
  } finally {
    redis.disconnect();
  }
  return summarise(ms);
}

const cpuMs = (u: NodeJS.CpuUsage): number => (u.user + u.system) / 1000;

// Hashes, then verifications, timed one at a time; CPU from process.cpuUsage (argon2 runs on libuv's threads).
async function passwordCost(n: number) {
  const hashes: number[] = [];
  const verifies: number[] = [];
  let stored = '';
  const h0 = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    stored = await hashPassword(`${PASSWORD} ${i}`);
    hashes.push(performance.now() - t);
  }
  const hashCpu = process.cpuUsage(h0);
  const v0 = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await verifyPassword(stored, PASSWORD);
    verifies.push(performance.now() - t);
  }
  const verifyCpu = process.cpuUsage(v0);
  return {
    hash: summarise(hashes),
    verify: summarise(verifies),
    hashCpuMs: r2(cpuMs(hashCpu) / n),
    verifyCpuMs: r2(cpuMs(verifyCpu) / n),
  };
}

async function signInCost(pool: Pool, pid: number, n: number, email: (i: number) => string) {
  const ms: number[] = [];
  const cpu0 = cpuSecondsOf(pid) ?? NaN;
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const res = await pool.request({
      method: 'POST',
      path: '/api/auth/sign-in',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: email(i), password: PASSWORD }),
    });
    await res.body.text();
    ms.push(performance.now() - t);
    if (res.statusCode >= 500 || res.statusCode === 429) throw new Error(`sign-in answered ${res.statusCode}`);
  }
  return { ms: summarise(ms), cpuMs: r2((((cpuSecondsOf(pid) ?? NaN) - cpu0) * 1000) / n) };
}
