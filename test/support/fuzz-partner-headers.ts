import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { sign } from '../../src/shared/crypto/signature';
import type { PartnerCredentials } from './partner-client';
import type { RawRequest } from './raw-http';
import { MANAGER_TOKEN } from './test-config';

// Generated headers for the partner API: missing, forged, replayed and foreign signatures and keys,
// bad timestamps, bad Idempotency-Keys and content types, duplicated, oversized and odd-cased headers.
const mostly = <T>(usual: T, others: readonly T[], weight = 5) =>
  fc.oneof({ arbitrary: fc.constant(usual), weight }, { arbitrary: fc.constantFrom(...others), weight: 1 });
export const recipe = fc.record({
  partner: fc.constantFrom(0, 1),
  auth: mostly('valid', [
    'missing',
    'unknown',
    'other',
    'manager',
    'no_scheme',
    'basic',
    'lower_scheme',
    'spaces',
    'huge',
    'twice',
  ] as const),
  sig: mostly('valid', [
    'missing',
    'forged',
    'other_secret',
    'other_body',
    'upper_hex',
    'bare_hex',
    'sha1',
    'short',
    'padded',
    'twice',
    'empty',
    'non_hex',
  ] as const),
  ts: mostly('now', [
    'missing',
    'past',
    'future',
    'edge',
    'millis',
    'float',
    'negative',
    'zero',
    'words',
    'huge',
    'spaced',
    'twice',
    'exp',
  ] as const),
  idem: mostly('fresh', ['missing', 'empty', 'long', 'latin1', 'tab', 'twice', 'reused', 'replay'] as const),
  ct: mostly('json', ['missing', 'text', 'charset', 'upper', 'form', 'twice', 'jsonx', 'vnd', 'multipart'] as const),
  casing: fc.constantFrom('lower', 'upper', 'title', 'mixed'),
  junk: fc.array(
    fc.tuple(
      fc.stringMatching(/^X-[A-Za-z0-9-]{1,20}$/),
      fc.oneof(
        { arbitrary: fc.stringMatching(/^[\x20-\x7e]{0,40}$/), weight: 12 },
        { arbitrary: fc.nat({ max: 30_000 }).map((n) => 'j'.repeat(n)), weight: 1 }, // over 16 KiB at times: 431
      ),
    ),
    { maxLength: 3 },
  ),
  pick: fc.nat(), // which earlier request a replay or reuse takes
});
export type Recipe = typeof recipe extends fc.Arbitrary<infer R> ? R : never;

export const nowS = () => Math.floor(Date.now() / 1000);
const TIMESTAMPS: Record<Recipe['ts'], () => string[]> = {
  now: () => [String(nowS())],
  missing: () => [],
  past: () => [String(nowS() - 301)],
  future: () => [String(nowS() + 301)],
  edge: () => [String(nowS() - 290)],
  millis: () => [String(Date.now())],
  float: () => [`${nowS()}.5`],
  negative: () => [`-${nowS()}`],
  zero: () => ['0'],
  words: () => ['yesterday'],
  huge: () => ['99999999999999999999'],
  spaced: () => [` ${nowS()} `],
  twice: () => [String(nowS()), String(nowS() - 1000)],
  exp: () => ['1.7e9'],
};

function casing(name: string, style: Recipe['casing'], i: number): string {
  if (style === 'upper') return name.toUpperCase();
  if (style === 'title') return name.replace(/(^|-)([a-z])/g, (_m, d: string, c: string) => d + c.toUpperCase());
  if (style === 'mixed') return [...name].map((c, j) => ((i + j) % 2 ? c.toUpperCase() : c)).join('');
  return name;
}

// Renders a recipe as a request of one of two partners; POST requests are kept (up to 500) in
// `sent` for later replays and reused keys.
export function requestRenderer(
  partners: readonly { creds: PartnerCredentials }[],
  sent: RawRequest[],
): (r: Recipe, method: 'POST' | 'GET', path: string, raw: Buffer) => RawRequest {
  return function render(r, method, path, raw) {
    const me = partners[r.partner]!.creds;
    const other = partners[1 - r.partner]!.creds;
    if (method === 'POST' && (r.idem === 'replay' || r.idem === 'reused') && sent.length > 0) {
      const earlier = sent[r.pick % sent.length]!;
      if (r.idem === 'replay') return earlier; // the very same bytes, signature and key again
      const key = earlier.headers.find(([n]) => n.toLowerCase() === 'idempotency-key');
      if (key)
        return {
          ...earlier,
          body: raw,
          headers: earlier.headers.map(([n, v]) =>
            n.toLowerCase() === 'x-signature' ? [n, sign(me.hmac_secret, raw)] : [n, v],
          ),
        };
    }
    const lines: [string, string][] = [];
    const add = (name: string, ...values: string[]) =>
      values.forEach((v) => lines.push([casing(name, r.casing, lines.length), v]));
    const bearer = (key: string) => `Bearer ${key}`;
    const auth: Record<Recipe['auth'], string[]> = {
      valid: [bearer(me.api_key)],
      missing: [],
      unknown: [bearer(`lk_${randomUUID()}`)],
      other: [bearer(other.api_key)],
      manager: [bearer(MANAGER_TOKEN)],
      no_scheme: [me.api_key],
      basic: [`Basic ${Buffer.from(`${me.api_key}:`).toString('base64')}`],
      lower_scheme: [`bearer ${me.api_key}`],
      spaces: [`Bearer   ${me.api_key}  `],
      huge: [bearer('k'.repeat(12_000))],
      twice: [bearer(me.api_key), bearer(other.api_key)],
    };
    const good = sign(me.hmac_secret, raw);
    const sig: Record<Recipe['sig'], string[]> = {
      valid: [good],
      missing: [],
      forged: [`sha256=${randomUUID().replace(/-/g, '').repeat(2)}`],
      other_secret: [sign(other.hmac_secret, raw)],
      other_body: [sign(me.hmac_secret, Buffer.concat([raw, Buffer.from(' ')]))],
      upper_hex: [`SHA256=${good.slice(7).toUpperCase()}`],
      bare_hex: [good.slice(7)],
      sha1: [`sha1=${good.slice(7, 47)}`],
      short: [good.slice(0, -1)],
      padded: [` ${good}\t`],
      twice: [good, good],
      empty: [''],
      non_hex: [`sha256=${'g'.repeat(64)}`],
    };
    add('authorization', ...auth[r.auth]);
    add('x-signature', ...sig[r.sig]);
    add('x-timestamp', ...TIMESTAMPS[r.ts]());
    if (method === 'POST') {
      const idem: Record<Recipe['idem'], string[]> = {
        fresh: [randomUUID()],
        missing: [],
        empty: [''],
        long: ['k'.repeat(256)],
        latin1: ['caf\u00e9-' + randomUUID()],
        tab: [`a\tb-${randomUUID()}`],
        twice: [randomUUID(), randomUUID()],
        reused: [randomUUID()],
        replay: [randomUUID()],
      };
      add('idempotency-key', ...idem[r.idem]);
      const ct: Record<Recipe['ct'], string[]> = {
        json: ['application/json'],
        missing: [],
        text: ['text/plain'],
        charset: ['application/json; charset=utf-8'],
        upper: ['APPLICATION/JSON'],
        form: ['application/x-www-form-urlencoded'],
        twice: ['application/json', 'text/plain'],
        jsonx: ['application/jsonx'],
        vnd: ['application/vnd.api+json'],
        multipart: ['multipart/form-data; boundary=x'],
      };
      add('content-type', ...ct[r.ct]);
    }
    for (const [n, v] of r.junk) add(n, v);
    const req: RawRequest = { method, path, headers: lines, body: raw };
    if (method === 'POST' && sent.length < 500) sent.push(req);
    return req;
  };
}
