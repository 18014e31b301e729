import { createHmac } from 'node:crypto';
import { LeadIntakeError, verifyCallback, verifyPostback } from '../src/index.js';
import { DEFAULT_RETRY, nextWaitMs, retryAfterSeconds } from '../src/retry.js';

// The parts that need no service: when to retry, and verifying signatures made here.
const answer = (status: number | null, error: string | null = null, retryAfter: string | null = null) => ({
  status,
  error,
  retryAfter,
});

it('retries only network errors, 429, 503 and a key still in use, never before Retry-After', () => {
  for (const a of [answer(null), answer(503), answer(409, 'idempotency_key_in_use', '1')])
    expect(nextWaitMs(a, 1, 30_000, DEFAULT_RETRY, 0.5, 0)).not.toBeNull();
  for (const a of [answer(400, 'malformed_json'), answer(403, 'invalid_signature'), answer(500, 'internal_error')])
    expect(nextWaitMs(a, 1, 30_000, DEFAULT_RETRY, 0.5, 0)).toBeNull();
  expect(nextWaitMs(answer(429, 'rate_limit_exceeded', '7'), 1, 30_000, DEFAULT_RETRY, 0, 0)).toBe(7000);
  expect(nextWaitMs(answer(429, 'rate_limit_exceeded', '7'), 1, 30_000, DEFAULT_RETRY, 1, 0)).toBe(7500);
  expect(nextWaitMs(answer(429, 'rate_limit_exceeded', '40'), 1, 30_000, DEFAULT_RETRY, 0, 0)).toBeNull();
  expect(retryAfterSeconds(new Date(12_000).toUTCString(), 1000)).toBe(11);
});

it('backs off exponentially with jitter, up to the cap', () => {
  expect(nextWaitMs(answer(null), 1, 30_000, DEFAULT_RETRY, 0, 0)).toBe(250);
  expect(nextWaitMs(answer(null), 3, 30_000, DEFAULT_RETRY, 1, 0)).toBe(2000);
  expect(nextWaitMs(answer(null), 10, 30_000, DEFAULT_RETRY, 1, 0)).toBe(8000);
});

it('verifies both callback schemes and a postback, refusing what does not match', () => {
  const body = '{"event":"lead.accepted","external_lead_id":"x","internal_id":"le-1"}';
  const ts = '1700000000';
  const ours = {
    'X-Signature': `sha256=${createHmac('sha256', 'cs_a').update(body).digest('hex')}`,
    'X-Timestamp': ts,
  };
  expect(verifyCallback(ours, body, ['cs_b', 'cs_a'], { nowS: 1700000100 }).payload.internal_id).toBe('le-1');
  expect(() => verifyCallback(ours, body, 'cs_b', { nowS: 1700000100 })).toThrow(LeadIntakeError);
  const key = Buffer.from('k'.repeat(24));
  const sig = createHmac('sha256', key).update(`le-1:1.${ts}.${body}`).digest('base64');
  const swh = { 'webhook-id': 'le-1:1', 'webhook-timestamp': ts, 'webhook-signature': `v1,AAAA v1,${sig}` };
  expect(verifyCallback(swh, body, `whsec_${key.toString('base64')}`, { nowS: 1700000000 }).eventId).toBe('le-1:1');
  expect(() => verifyCallback(swh, body, `whsec_${key.toString('base64')}`, { nowS: 1700000400 })).toThrow(
    expect.objectContaining({ code: 'invalid_timestamp' }),
  );
  const url = 'https://t.example/pb?e=lead.ftd';
  expect(verifyPostback(url, `sha256=${createHmac('sha256', 'tok').update(url).digest('hex')}`, 'tok')).toBe(true);
  expect(() =>
    verifyPostback(`${url}x`, `sha256=${createHmac('sha256', 'tok').update(url).digest('hex')}`, 'tok'),
  ).toThrow(expect.objectContaining({ code: 'invalid_signature' }));
});
