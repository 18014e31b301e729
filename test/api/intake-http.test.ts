import { randomUUID } from 'node:crypto';
import { leadCipher } from '../../src/shared/crypto/data-key';
import { IntakeKeyStore } from '../../src/shared/store/intake-keys';
import { lookupHash } from '../../src/shared/crypto/lookup-hash';
import { openPersonal } from '../../src/shared/crypto/personal-data';
import type { IntakeCommand } from '../../src/shared/schemas';
import { PartnerClient, type PartnerCredentials } from '../support/partner-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { testConfig } from '../support/test-config';
import { TopicProbe } from '../support/topic-probe';
import { servicesOf } from '../support/manager-services';

// The request itself (spec 2.2, 4.1, 8): media type, size, JSON, Idempotency-Key, validation
// reasons, field mapping and normalisation. Runs the ingress alone: a valid lead is observed as
// the intake command on the real topic, and with no processor answering the request ends in the
// documented retryable 503 decision_pending.
let app: TestApp;
let proxied: TestApp; // an instance that trusts 127.0.0.1 as a proxy
let commands: TopicProbe<IntakeCommand>;
let client: PartnerClient;
let creds: PartnerCredentials;
let partnerId: string;

beforeAll(async () => {
  const config = testConfig({ ROLE: 'ingress', INTAKE_REPLY_TIMEOUT_MS: '300' });
  app = await startTestApp({}, config);
  proxied = await startTestApp({}, { ...config, http: { ...config.http, trustedProxies: ['127.0.0.1'] } });
  commands = await new TopicProbe<IntakeCommand>(app.runtime, 'intakeCommands').start();
  const partner = await servicesOf(app.runtime).partners.create({
    name: 'HTTP',
    rate_limits: { intake_per_minute: 1000 },
  });
  partnerId = partner.partner.id;
  creds = partner.secrets;
  client = new PartnerClient(app.url, creds);
});

afterAll(async () => {
  await commands?.stop();
  await proxied?.stop();
  await app?.destroy();
});

const validationError = (reason: string) => ({ status: 422, body: { id: null, status: 'validation_error', reason } });

async function commandFor(key: string): Promise<IntakeCommand> {
  const values = await commands.waitFor((cs) => cs.some((c) => c.idempotency_key === key), 20000, `command ${key}`);
  return values.find((c) => c.idempotency_key === key) as IntakeCommand;
}

// The command carries where the lead's data key is (key_ref), never the key: read it from the store.
async function cipherOf(cmd: IntakeCommand) {
  const dek = (await new IntakeKeyStore(app.runtime.mongo.db).byRefs([cmd.lead.key_ref as string])).get(
    cmd.lead.key_ref as string,
  );
  return leadCipher(app.runtime.cipher, { dek_enc: dek });
}
const personal = async (cmd: IntakeCommand) => openPersonal(await cipherOf(cmd), cmd.lead.personal_enc);

describe('body checks', () => {
  it('415 for a content type other than JSON', async () => {
    const res = await client.submitLead('phone=+4915112345678', { contentType: 'application/x-www-form-urlencoded' });
    expect(res).toMatchObject({
      status: 415,
      body: { error: 'unsupported_media_type', message: 'Send Content-Type: application/json' },
    });
    expect((await client.submitLead('{}', { contentType: 'text/plain' })).status).toBe(415);
  });

  it('accepts application/json with a charset parameter', async () => {
    expect(await client.submitLead('{}', { contentType: 'application/json; charset=utf-8' })).toMatchObject(
      validationError('missing_required:phone'),
    );
  });

  it('413 for a body over the limit, with the limit in the message', async () => {
    const res = await client.submitLead({ phone: '+4915112345678', metadata: { pad: 'x'.repeat(70_000) } });
    expect(res).toMatchObject({
      status: 413,
      body: { error: 'payload_too_large', message: 'The body is larger than 65536 bytes' },
    });
  });

  it('400 for malformed JSON', async () => {
    expect(await client.submitLead('{"phone": "+49151', {})).toMatchObject({
      status: 400,
      body: { error: 'malformed_json' },
    });
    expect(await client.submitLead('', {})).toMatchObject({ status: 400, body: { error: 'malformed_json' } });
  });

  it('422 invalid_type:body for JSON that is not an object', async () => {
    expect(await client.submitLead('[{"phone":"+4915112345678"}]')).toMatchObject(validationError('invalid_type:body'));
  });
});

describe('Idempotency-Key', () => {
  it('a POST without it is a validation error naming the header', async () => {
    expect(await client.submitLead({ phone: '+4915112345678' }, { idempotencyKey: null })).toMatchObject(
      validationError('missing_required:idempotency_key'),
    );
  });

  it('400 when it is longer than 255 characters', async () => {
    expect(await client.submitLead({}, { idempotencyKey: 'k'.repeat(256) })).toMatchObject({
      status: 400,
      body: { error: 'invalid_idempotency_key' },
    });
  });
});

describe('validation reasons (id null)', () => {
  it.each([
    [{}, 'missing_required:phone'],
    [{ phone: '' }, 'missing_required:phone'],
    [{ phone: '4915112345678' }, 'invalid_format:phone'],
    [{ phone: '+12' }, 'invalid_format:phone'],
    [{ phone: 4915112345678 }, 'invalid_type:phone'],
    [{ phone: '+4915112345678', email: 'ann@' }, 'invalid_format:email'],
    [{ phone: '+4915112345678', country: 'Atlantis' }, 'invalid_value:country'],
    [{ phone: '+4915112345678', country_code: 'QQ' }, 'invalid_value:country_code'],
    [{ phone: '+4915112345678', ip: 'localhost' }, 'invalid_format:ip'],
    [{ phone: '+4915112345678', first_name: 'x'.repeat(101) }, 'too_long:first_name'],
    [{ phone: '+4915112345678', shoe_size: 44 }, 'unknown_field:shoe_size'],
  ])('%j -> %s', async (body, reason) => {
    expect(await client.submitLead(body)).toMatchObject(validationError(reason));
  });
});

describe('normalisation, as the processor receives it', () => {
  it('sends phone and email only encrypted and hashed, normalised, and derives the rest', async () => {
    const key = randomUUID();
    const res = await client.submitLead(
      {
        phone: '+44 20 7946 0958',
        email: 'Ann.Lee@Example.COM',
        first_name: 'Ann',
        last_name: 'Lee',
        country: 'United Kingdom',
        source: 'fb',
      },
      { idempotencyKey: key },
    );
    expect(res).toMatchObject({ status: 503, body: { error: 'decision_pending' } });
    expect(res.headers.get('retry-after')).toBe('1');
    const cmd = await commandFor(key);
    const { hashKey } = app.config.crypto;
    expect(cmd).toMatchObject({
      partner_id: partnerId,
      idempotency_key: key,
      reply_to: expect.stringMatching(/^ingress-/),
    });
    expect(cmd.lead).toEqual({
      external_id: key, // falls back to the Idempotency-Key
      country: 'United Kingdom',
      country_code: 'GB',
      source: 'fb',
      key_ref: expect.stringMatching(/^ik-\d{10}-[0-9a-f]{24}$/),
      phone_enc: expect.any(String),
      email_enc: expect.any(String),
      personal_enc: expect.any(String),
    });
    expect((await cipherOf(cmd)).decrypt(cmd.lead.phone_enc)).toBe('+442079460958');
    expect(await personal(cmd)).toEqual({ first_name: 'Ann', last_name: 'Lee', full_name: 'Ann Lee', ip: '127.0.0.1' }); // ip from the connection
    const onTheWire = JSON.stringify(commands.seen.find((s) => s.value.idempotency_key === key));
    // The whole number, in either form: a fragment such as "7946" turns up by chance in hex hashes.
    expect(onTheWire).not.toMatch(/2079460958|7946 0958|ann\.lee|Ann\.Lee|"Ann"|"Lee"|127\.0\.0\.1/);
    // Nor a keyed hash of either: whoever holds HASH_KEY finds the phone behind one.
    for (const hash of [
      lookupHash(hashKey, 'phone', '+442079460958'),
      lookupHash(hashKey, 'email', 'ann.lee@example.com'),
    ])
      expect(onTheWire).not.toContain(hash);
  });

  it("keys the command by the first 3 hex digits of the phone's hash, so one phone is decided in order and the key names no one", async () => {
    const key = randomUUID();
    await client.submitLead({ phone: '+4915112345678', external_id: 'ext-key' }, { idempotencyKey: key });
    await commandFor(key);
    const seen = commands.seen.find((s) => s.value.idempotency_key === key);
    expect(seen?.key).toBe(lookupHash(app.config.crypto.hashKey, 'phone', '+4915112345678').slice(0, 3));
    expect(seen?.value.lead.external_id).toBe('ext-key');
  });

  it('ignores X-Forwarded-For from an untrusted peer and honours it from a trusted proxy', async () => {
    const direct = randomUUID();
    await client.submitLead(
      { phone: '+4915112345678' },
      { idempotencyKey: direct, headers: { 'x-forwarded-for': '198.51.100.23' } },
    );
    expect((await personal(await commandFor(direct))).ip).toBe('127.0.0.1');

    const viaProxy = randomUUID();
    const behindProxy = new PartnerClient(proxied.url, creds);
    await behindProxy.submitLead(
      { phone: '+4915112345678' },
      { idempotencyKey: viaProxy, headers: { 'x-forwarded-for': '198.51.100.23' } },
    );
    expect((await personal(await commandFor(viaProxy))).ip).toBe('198.51.100.23');
  });

  it('keeps the ip the partner sent', async () => {
    const key = randomUUID();
    await client.submitLead({ phone: '+4915112345678', ip: '2001:db8::1' }, { idempotencyKey: key });
    expect((await personal(await commandFor(key))).ip).toBe('2001:db8::1');
  });
});

describe('field_mapping', () => {
  let mapped: PartnerClient;

  beforeAll(async () => {
    const partner = await servicesOf(app.runtime).partners.create({
      name: 'Nested',
      field_mapping: {
        first_name: 'profile.firstName',
        last_name: 'profile.lastName',
        phone: 'contact.phone',
        email: 'contact.email',
        external_id: 'leadRef',
      },
    });
    mapped = new PartnerClient(app.url, partner.secrets);
  });

  it("maps the partner's nested layout to the canonical lead", async () => {
    const key = randomUUID();
    await mapped.submitLead(
      {
        leadRef: 'N-1',
        profile: { firstName: 'Bo', lastName: 'Ek' },
        contact: { phone: '+46 70 123 45 67', email: 'BO@EK.SE' },
        country: 'SE',
      },
      { idempotencyKey: key },
    );
    const cmd = await commandFor(key);
    expect(cmd.lead).toMatchObject({ external_id: 'N-1', country: 'SE', country_code: 'SE' });
    expect(await personal(cmd)).toMatchObject({ first_name: 'Bo', last_name: 'Ek', full_name: 'Bo Ek' });
    const cipher = await cipherOf(cmd);
    expect(cipher.decrypt(cmd.lead.phone_enc)).toBe('+46701234567');
    expect(cipher.decrypt(cmd.lead.email_enc as string)).toBe('bo@ek.se');
  });

  it('applies required fields to the mapped result', async () => {
    expect(await mapped.submitLead({ profile: { firstName: 'Bo' }, contact: {} })).toMatchObject(
      validationError('missing_required:phone'),
    );
    expect(await mapped.submitLead({ contact: { phone: 'call me' } })).toMatchObject(
      validationError('invalid_format:phone'),
    );
  });

  it('refuses keys outside the mapping and the canonical fields', async () => {
    expect(await mapped.submitLead({ contact: { phone: '+46701234567' }, tracking: {} })).toMatchObject(
      validationError('unknown_field:tracking'),
    );
  });
});

describe('ops endpoints', () => {
  it('reports the reply consumer in /readyz', async () => {
    const res = await fetch(`${app.url}/readyz`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { checks: Record<string, string> }).checks['intake-replies']).toBe('ok');
  });

  it('counts requests by endpoint and outcome, with the partner but never a lead', async () => {
    await client.submitLead({});
    await client.submitLead('{}', { contentType: 'text/plain' });
    const text = await (await fetch(`${app.url}/metrics`)).text();
    expect(text).toContain(
      `lead_intake_requests_total{endpoint="intake",outcome="validation_error",partner_id="${partnerId}",test="false"}`,
    );
    expect(text).toMatch(
      /lead_intake_requests_total\{endpoint="intake",outcome="refused",partner_id="[^"]+",test="false"\} \d+/,
    );
    expect(text).toMatch(/lead_intake_request_duration_seconds_count\{endpoint="intake"\} \d+/);
    expect(text).not.toMatch(/le-\d+/);
  });
});
