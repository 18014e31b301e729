import { quotaWindowKey, WINDOW_MS } from '../../src/shared/partners/partner-quota';
import { servicesOf } from './manager-services';
import type { TestApp } from './test-app';

// The partners one SDK's live tests run as, handed over as environment variables (sdks/README.md):
//   LEAD_INTAKE_*          a partner with spec callbacks to <callback port>/spec, blocking country RU and
//                          source blocked-src (the refusals);
//   LEAD_INTAKE_ROTATED_*  a standard-webhooks partner in a rotation's grace: its old key and secret still
//                          work and its callbacks to <callback port>/rotated carry the old and new signatures;
//   LEAD_INTAKE_TIGHT_*    a partner allowed one lead a minute whose window is full until about
//                          `tightFreeInMs` from now (see fillWindow).
export async function sdkPartnerEnv(app: TestApp, callbackPort: number, tightFreeInMs: number) {
  const { partners } = servicesOf(app.runtime);
  const callbackBase = `http://127.0.0.1:${callbackPort}`;
  const spec = await partners.create({
    name: 'sdk-spec',
    callback_url: `${callbackBase}/spec`,
    blocked_countries: ['RU'],
    blocked_sources: ['blocked-src'],
  });
  const rotated = await partners.create({
    name: 'sdk-rotated',
    callback_url: `${callbackBase}/rotated`,
    signature_scheme: 'standard-webhooks',
  });
  const fresh = await partners.rotate(rotated.partner.id, ['hmac_secret', 'callback_secret'], 600);
  if (!fresh) throw new Error('rotation failed');
  const tight = await partners.create({ name: 'sdk-tight', rate_limits: { intake_per_minute: 1 } });
  await fillWindow(app, tight.partner.id, tightFreeInMs);
  return {
    LEAD_INTAKE_URL: `${app.url}/api`,
    LEAD_INTAKE_API_KEY: spec.secrets.api_key,
    LEAD_INTAKE_HMAC_SECRET: spec.secrets.hmac_secret,
    LEAD_INTAKE_CALLBACK_SECRET: spec.secrets.callback_secret,
    LEAD_INTAKE_CALLBACK_PORT: String(callbackPort),
    LEAD_INTAKE_ROTATED_API_KEY_OLD: rotated.secrets.api_key,
    LEAD_INTAKE_ROTATED_HMAC_SECRET_OLD: rotated.secrets.hmac_secret,
    LEAD_INTAKE_ROTATED_CALLBACK_SECRET_OLD: rotated.secrets.callback_secret,
    LEAD_INTAKE_ROTATED_CALLBACK_SECRET: fresh.callback_secret as string,
    LEAD_INTAKE_TIGHT_API_KEY: tight.secrets.api_key,
    LEAD_INTAKE_TIGHT_HMAC_SECRET: tight.secrets.hmac_secret,
  };
}

// A request recorded in the partner's real rate-limit window (the sorted set the admission script
// reads) as if made long enough ago that it leaves the window in `freeInMs`: the next lead gets a
// real 429 whose Retry-After is a few seconds, not the minute a live request would hold the slot.
async function fillWindow(app: TestApp, partnerId: string, freeInMs: number): Promise<void> {
  const [seconds, micros] = await app.runtime.redis.time();
  const nowMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  const key = quotaWindowKey('intake', partnerId);
  await app.runtime.redis.zadd(key, nowMs - WINDOW_MS + freeInMs, 'earlier-request');
  await app.runtime.redis.pexpire(key, WINDOW_MS);
}
