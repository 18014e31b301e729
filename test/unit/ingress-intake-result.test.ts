import { asReplay, fromDecision, outcomeLabel, validationFailure } from '../../src/ingress/intake-result';
import { authFailuresKey, quotaFor, retryAfterSeconds } from '../../src/ingress/rate-limit';
import type { PartnerDoc } from '../../src/shared/mongo/documents';
import type { IntakeDecision } from '../../src/shared/schemas';

const decision = (d: Partial<IntakeDecision>): IntakeDecision => ({
  outcome: 'accepted',
  lead_id: 'le-7',
  reason: null,
  body_hash: 'h',
  replay: false,
  ...d,
});

describe('fromDecision (spec 2.3, 4.1, 7.1)', () => {
  it('accepted -> 200 with id, reason null and duration_ms', () => {
    expect(fromDecision(decision({}), 42)).toEqual({
      http: 200,
      body: { id: 'le-7', status: 'accepted', reason: null, duration_ms: 42 },
    });
  });

  it('accepted read back from storage carries no timing', () => {
    expect(fromDecision(decision({}))).toEqual({ http: 200, body: { id: 'le-7', status: 'accepted', reason: null } });
  });

  it('duplicate -> 409 with the existing lead id and its reason', () => {
    expect(fromDecision(decision({ outcome: 'duplicate', lead_id: 'le-3', reason: 'matched_lead:3' }), 5)).toEqual({
      http: 409,
      body: { id: 'le-3', status: 'duplicate', reason: 'matched_lead:3' },
    });
  });

  it('rejected -> 422 with id null even though the processor keeps the lead', () => {
    expect(fromDecision(decision({ outcome: 'rejected', lead_id: 'le-9', reason: 'country_blocked:KP' }), 5)).toEqual({
      http: 422,
      body: { id: null, status: 'rejected', reason: 'country_blocked:KP' },
    });
  });

  it('idempotency_mismatch -> 422 idempotency_key_reused', () => {
    expect(fromDecision(decision({ outcome: 'idempotency_mismatch', lead_id: null }), 5)).toEqual({
      http: 422,
      body: { error: 'idempotency_key_reused', message: expect.stringContaining('different body') },
    });
  });
});

describe('asReplay', () => {
  it('returns the stored status and body with replay: true and without duration_ms', () => {
    expect(asReplay(fromDecision(decision({}), 42))).toEqual({
      http: 200,
      body: { id: 'le-7', status: 'accepted', reason: null, replay: true },
    });
    expect(asReplay(validationFailure('missing_required:phone'))).toEqual({
      http: 422,
      body: { id: null, status: 'validation_error', reason: 'missing_required:phone', replay: true },
    });
  });
});

describe('outcomeLabel', () => {
  it.each([
    [200, { status: 'accepted' }, 'accepted'],
    [200, { status: 'accepted', replay: true }, 'replay'],
    [409, { status: 'duplicate' }, 'duplicate'],
    [422, { status: 'rejected' }, 'rejected'],
    [422, { status: 'validation_error' }, 'validation_error'],
    [401, { error: 'missing_api_key' }, 'auth_failed'],
    [403, { error: 'invalid_signature' }, 'auth_failed'],
    [429, { error: 'rate_limit_exceeded' }, 'rate_limited'],
    [404, { error: 'not_found' }, 'not_found'],
    [200, { id: 'le-1', our_status: 'new' }, 'found'],
    [409, { error: 'idempotency_key_in_use' }, 'refused'],
    [503, { error: 'decision_pending' }, 'error'],
  ])('%i %j -> %s', (http, body, label) => expect(outcomeLabel(http, body)).toBe(label));
});

describe('failed-authentication limit key', () => {
  it('counts an IPv6 client per /64 (one host routinely has a whole /64), an IPv4 one per address', () => {
    const key = authFailuresKey('2001:db8:1:2:aaaa::1');
    expect(key).toBe('af:2001:db8:1:2::/64');
    expect(authFailuresKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe(key);
    expect(authFailuresKey('2001:db8:1:3::1')).not.toBe(key);
    expect(authFailuresKey('203.0.113.7')).toBe('af:203.0.113.7');
    expect(authFailuresKey('::ffff:203.0.113.7')).toBe('af:203.0.113.7');
  });
});

describe('rate-limit arithmetic', () => {
  it('rounds Retry-After up to whole seconds, at least 1', () => {
    expect(retryAfterSeconds(1)).toBe(1);
    expect(retryAfterSeconds(999)).toBe(1);
    expect(retryAfterSeconds(1000)).toBe(1);
    expect(retryAfterSeconds(1001)).toBe(2);
    expect(retryAfterSeconds(57_800)).toBe(58);
    expect(retryAfterSeconds(0)).toBe(1);
  });

  it("uses the partner's raised quota, else the default", () => {
    const defaults = { intakePerMinute: 60, statusPerMinute: 120 };
    const partner = (rate_limits?: PartnerDoc['rate_limits']) => ({ _id: 'pa-1', rate_limits }) as PartnerDoc;
    expect(quotaFor(partner(), 'intake', defaults)).toBe(60);
    expect(quotaFor(partner(), 'status', defaults)).toBe(120);
    expect(quotaFor(partner({ intake_per_minute: 600 }), 'intake', defaults)).toBe(600);
    expect(quotaFor(partner({ intake_per_minute: 600 }), 'status', defaults)).toBe(120);
  });
});
