import { createPartnerVia } from '../support/created-partner';
import { ManagerClient } from '../support/manager-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { MANAGER_TOKEN } from '../support/test-config';

// Partners through the manager API over a real socket: creation with secrets shown once, reads
// without secrets, validated changes, key rotation, authentication and the audit log.
let app: TestApp;
let manager: ManagerClient;

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'ingress' });
  manager = new ManagerClient(app.url);
});

afterAll(async () => {
  await app?.destroy();
});

const createPartner = (body?: Record<string, unknown>) => createPartnerVia(manager, body);

describe('authentication', () => {
  it.each([
    ['no Authorization header', null],
    ['an unknown token', 'not-a-manager-token-0123456789'],
    ['an empty bearer', ''],
  ])('refuses %s with 401 manager_unauthorized', async (_what, token) => {
    const res = await manager.withToken(token).get('/api/affiliates');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'manager_unauthorized', message: expect.any(String) });
  });

  it('refuses a partner API key', async () => {
    const partner = await createPartner();
    const res = await manager.withToken(partner.api_key).post('/api/affiliates', { name: 'sneaky' });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('manager_unauthorized');
  });

  it('checks the token before the body, so a bad body without a token is still 401', async () => {
    const res = await manager.withToken(null).post('/api/affiliates', '{not json');
    expect(res.status).toBe(401);
  });
});

describe('creating a partner', () => {
  it('answers 201 with the settings and the three secrets', async () => {
    const body = {
      name: 'Full',
      callback_url: 'https://partner.example/cb',
      callback_events: ['lead.accepted', 'lead.ftd'],
      status_mapping: { new: 'NEW', ftd: 'DEPOSIT' },
      field_mapping: { phone: 'contact.phone', first_name: 'profile.firstName' },
      rate_limits: { intake_per_minute: 120, status_per_minute: 240 },
      blocked_countries: ['KP', 'IR'],
    };
    const created = await createPartner(body);
    expect(created).toMatchObject({ ...body, disabled: false, key_rotated_at: null });
    expect(created.id).toMatch(/^pa-[0-9a-f]{16}$/);
    expect(created.api_key).toMatch(/^lk_/);
    expect(created.hmac_secret).toMatch(/^hs_/);
    expect(created.callback_secret).toMatch(/^cs_/);
  });

  it('stores the API key hashed and the HMAC secrets encrypted', async () => {
    const created = await createPartner();
    const stored = JSON.stringify(await app.runtime.mongo.collections.partners.findOne({ _id: created.id }));
    for (const secret of [created.api_key, created.hmac_secret, created.callback_secret])
      expect(stored).not.toContain(secret);
  });

  it.each([
    ['no name', { callback_url: 'https://x.example/cb' }, /name/],
    ['a URL that is not a URL', { name: 'n', callback_url: 'not a url' }, /callback_url/],
    [
      'a URL that is not http(s)',
      { name: 'n', callback_url: 'ftp://x.example/cb' },
      /callback_url must match pattern "\^https\?:\/\//,
    ],
    [
      'a URL with credentials',
      { name: 'n', callback_url: 'https://u:p@x.example/cb' },
      /callback_url must match pattern/,
    ],
    ['an unknown event', { name: 'n', callback_events: ['lead.exploded'] }, /callback_events/],
    [
      'a mapping from an unknown status',
      { name: 'n', status_mapping: { vanished: 'X' } },
      /status_mapping property name must be valid/,
    ],
    ['a blocked range that is no IP or CIDR', { name: 'n', blocked_ip_ranges: ['10.0.0.0/33'] }, /blocked_ip_ranges/],
    ['a malformed field mapping path', { name: 'n', field_mapping: { phone: 'contact..phone' } }, /field_mapping/],
    ['a field mapping to an unknown field', { name: 'n', field_mapping: { shoe_size: 'a.b' } }, /field_mapping/],
    ['a lower-case country', { name: 'n', blocked_countries: ['de'] }, /blocked_countries/],
    ['a quota of zero', { name: 'n', rate_limits: { intake_per_minute: 0 } }, /intake_per_minute/],
    ['an unknown setting', { name: 'n', colour: 'blue' }, /additional properties/],
    ['secrets chosen by the caller', { name: 'n', api_key: 'lk_mine' }, /additional properties/],
  ])('refuses %s with 422 invalid_request', async (_what, body, detail) => {
    const res = await manager.post('/api/affiliates', body);
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('invalid_request');
    expect(res.body.message).toMatch(detail);
  });

  it('refuses a body that is not JSON with 400 malformed_json', async () => {
    const res = await manager.post('/api/affiliates', '{"name":');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('malformed_json');
  });
});

describe('reading partners', () => {
  it('shows the settings and never a secret, a hash or a ciphertext', async () => {
    const created = await createPartner({ name: 'Readable', callback_url: 'https://r.example/cb' });
    const one = await manager.get(`/api/affiliates/${created.id}`);
    const list = await manager.get<{ items: Record<string, unknown>[] }>('/api/affiliates?limit=200');
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: created.id, name: 'Readable', callback_url: 'https://r.example/cb' });
    expect(list.body.items.map((p) => p.id)).toContain(created.id);
    for (const text of [JSON.stringify(one.body), JSON.stringify(list.body)]) {
      for (const secret of [created.api_key, created.hmac_secret, created.callback_secret])
        expect(text).not.toContain(secret);
      expect(text).not.toMatch(/api_key|hmac_secret|callback_secret/);
    }
  });

  it('pages the list newest first', async () => {
    const ids = [];
    for (const name of ['p1', 'p2', 'p3']) ids.push((await createPartner({ name })).id);
    const first = await manager.get<{ items: { id: string }[]; next_offset: number | null }>('/api/affiliates?limit=2');
    expect(first.body.items.map((p) => p.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.next_offset).toBe(2);
    const second = await manager.get<{ items: { id: string }[] }>('/api/affiliates?limit=2&offset=2');
    expect(second.body.items[0]?.id).toBe(ids[0]);
  });

  it('answers 404 not_found for an unknown id', async () => {
    const res = await manager.get('/api/affiliates/pa-0000000000000000');
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('not_found');
  });

  it('refuses a limit above 200 with 422', async () => {
    const res = await manager.get('/api/affiliates?limit=201');
    expect(res.status).toBe(422);
  });
});

describe('changing settings', () => {
  it('changes each setting given and keeps the others', async () => {
    const created = await createPartner({ name: 'Mutable', callback_events: ['lead.ftd'], blocked_countries: ['KP'] });
    const patch = {
      callback_url: 'https://new.example/cb',
      status_mapping: { contacted: 'IN_PROGRESS' },
      field_mapping: { email: 'contact.mail' },
      rate_limits: { intake_per_minute: 300 },
      disabled: true,
    };
    const res = await manager.patch(`/api/affiliates/${created.id}`, patch);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      ...patch,
      name: 'Mutable',
      callback_events: ['lead.ftd'],
      blocked_countries: ['KP'],
    });
    expect((await manager.get(`/api/affiliates/${created.id}`)).body).toMatchObject(patch);
  });

  it('clears the callback URL with null', async () => {
    const created = await createPartner({ name: 'Clear', callback_url: 'https://c.example/cb' });
    const res = await manager.patch(`/api/affiliates/${created.id}`, { callback_url: null });
    expect(res.body.callback_url).toBeNull();
  });

  it.each([
    ['a bad URL', { callback_url: 'https://' }],
    ['an unknown event name', { callback_events: ['lead.accepted', 'lead.deleted'] }],
    ['a mapping from an unknown status', { status_mapping: { new: 'N', bogus: 'B' } }],
    ['a malformed field mapping', { field_mapping: { phone: 42 } }],
    ['an empty change', {}],
  ])('refuses %s with 422 and changes nothing', async (_what, patch) => {
    const created = await createPartner({ name: 'Guarded' });
    const res = await manager.patch(`/api/affiliates/${created.id}`, patch);
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('invalid_request');
    expect((await manager.get(`/api/affiliates/${created.id}`)).body).toMatchObject({
      name: 'Guarded',
      callback_url: null,
    });
  });

  it('answers 404 for an unknown partner', async () => {
    expect((await manager.patch('/api/affiliates/pa-0000000000000000', { disabled: true })).status).toBe(404);
  });
});

describe('rotating secrets', () => {
  it('issues a new api_key only, by default', async () => {
    const created = await createPartner();
    const res = await manager.post(`/api/affiliates/${created.id}/rotate-key`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: created.id,
      api_key: expect.stringMatching(/^lk_/),
      key_rotated_at: expect.any(String),
      grace_until: null,
    });
    expect(res.body.api_key).not.toBe(created.api_key);
    const stored = await app.runtime.mongo.collections.partners.findOne({ _id: created.id });
    expect(app.runtime.partners.hmacSecret(stored!)).toBe(created.hmac_secret);
    expect(app.runtime.partners.callbackSecret(stored!)).toBe(created.callback_secret);
    expect(await app.runtime.partners.byApiKey(created.api_key)).toBeNull();
    expect((await app.runtime.partners.byApiKey(res.body.api_key as string))?._id).toBe(created.id);
  });

  it('rotates the HMAC secrets on request', async () => {
    const created = await createPartner();
    const res = await manager.post(`/api/affiliates/${created.id}/rotate-key`, {
      secrets: ['hmac_secret', 'callback_secret'],
    });
    expect(res.body).toEqual({
      id: created.id,
      key_rotated_at: expect.any(String),
      grace_until: null,
      api_key: expect.stringMatching(/^lk_/),
      hmac_secret: expect.stringMatching(/^hs_/),
      callback_secret: expect.stringMatching(/^cs_/),
    });
    const stored = await app.runtime.mongo.collections.partners.findOne({ _id: created.id });
    expect(app.runtime.partners.hmacSecret(stored!)).toBe(res.body.hmac_secret);
    expect(app.runtime.partners.callbackSecret(stored!)).toBe(res.body.callback_secret);
    expect((await manager.get(`/api/affiliates/${created.id}`)).body.key_rotated_at).toBe(res.body.key_rotated_at);
  });

  it('refuses an unknown secret name with 422 and an unknown partner with 404', async () => {
    const created = await createPartner();
    expect((await manager.post(`/api/affiliates/${created.id}/rotate-key`, { secrets: ['api_key'] })).status).toBe(422);
    expect((await manager.post('/api/affiliates/pa-0000000000000000/rotate-key')).status).toBe(404);
  });
});

describe('audit log', () => {
  it('records who did what to which partner, and never a secret or the token', async () => {
    const created = await createPartner({ name: 'Audited' });
    await manager.patch(`/api/affiliates/${created.id}`, { callback_url: 'https://a.example/cb' });
    const rotated = await manager.post(`/api/affiliates/${created.id}/rotate-key`, { secrets: ['hmac_secret'] });
    const log = await manager.get<{ items: Record<string, unknown>[] }>(`/api/audit-log?affiliate_id=${created.id}`);
    expect(log.status).toBe(200);
    expect(log.body.items.map((e) => e.action)).toEqual(['partner.rotate_key', 'partner.update', 'partner.create']);
    for (const entry of log.body.items) {
      expect(entry).toMatchObject({
        affiliate_id: created.id,
        actor: expect.stringMatching(/^break-glass:[0-9a-f]{6}$/),
        actor_name: 'break-glass token',
        auth_method: 'break_glass',
        client_address: '127.0.0.1',
        at: expect.any(String),
      });
    }
    expect(log.body.items[1]?.details).toEqual({ fields: ['callback_url'] });
    const everything = JSON.stringify(await app.runtime.mongo.collections.audit.find().toArray());
    for (const secret of [
      created.api_key,
      created.hmac_secret,
      created.callback_secret,
      rotated.body.api_key,
      rotated.body.hmac_secret,
      MANAGER_TOKEN,
    ]) {
      expect(everything).not.toContain(secret);
    }
  });
});
