import { ManagerClient } from '../support/manager-client';
import { PAST_AUTHENTICATION, PartnerClient } from '../support/partner-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { MANAGER_TOKEN, testConfig } from '../support/test-config';

// Key rotation across two ingress instances on the same MongoDB and Redis, and the wall between
// manager tokens and partner API keys. A lead without a phone proves a request got past
// authentication without needing the processor: 422 validation_error rather than 401.
let a: TestApp;
let b: TestApp;
let managerA: ManagerClient;

beforeAll(async () => {
  const config = testConfig({ ROLE: 'ingress' });
  a = await startTestApp({}, config);
  b = await startTestApp({}, config);
  managerA = new ManagerClient(a.url);
});

afterAll(async () => {
  await b?.stop();
  await a?.destroy();
});

type Created = { id: string; api_key: string; hmac_secret: string; callback_secret: string };

it('refuses the old key on the other instance as soon as the rotation answers, and takes the new one', async () => {
  const created = (await managerA.post<Created>('/api/affiliates', { name: 'Rotating' })).body;
  const oldOnB = new PartnerClient(b.url, created);
  expect(await oldOnB.submitLead({ source: 'warm-up' })).toMatchObject(PAST_AUTHENTICATION); // B now caches the old key

  const rotated = await managerA.post<{ api_key: string }>(`/api/affiliates/${created.id}/rotate-key`);
  expect(rotated.status).toBe(200);

  const refused = await oldOnB.submitLead({ source: 'after rotation' });
  expect(refused.status).toBe(401);
  expect(refused.body.error).toBe('invalid_api_key');
  expect(await new PartnerClient(a.url, created).submitLead({})).toMatchObject({
    status: 401,
    body: { error: 'invalid_api_key' },
  });
  expect(await new PartnerClient(b.url, { ...created, api_key: rotated.body.api_key }).submitLead({})).toMatchObject(
    PAST_AUTHENTICATION,
  );
});

it('refuses the old key on the other instance even when a look-up read the old partner just before the rotation', async () => {
  const created = (await managerA.post<Created>('/api/affiliates', { name: 'Raced' })).body;
  const partners = b.runtime.mongo.collections.partners;
  const realFindOne = partners.findOne.bind(partners) as (filter: object) => Promise<unknown>;
  let readOld!: () => void;
  let release!: () => void;
  const oldRead = new Promise<void>((r) => (readOld = r));
  const held = new Promise<void>((r) => (release = r));
  // B's next look-up reads the partner (old key still valid), then is held until the rotation's eviction has landed.
  const slowLoad = jest.spyOn(partners, 'findOne').mockImplementationOnce((async (filter: object) => {
    const doc = await realFindOne(filter);
    readOld();
    await held;
    return doc;
  }) as never);
  try {
    const inFlight = new PartnerClient(b.url, created).submitLead({ source: 'in flight' });
    await oldRead;
    expect((await managerA.post(`/api/affiliates/${created.id}/rotate-key`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 200)); // the eviction reaches B over Redis
    release();
    expect(await inFlight).toMatchObject({ status: 401, body: { error: 'invalid_api_key' } });
    expect(await new PartnerClient(b.url, created).submitLead({})).toMatchObject({
      status: 401,
      body: { error: 'invalid_api_key' },
    });
    expect(await new PartnerClient(a.url, created).submitLead({})).toMatchObject({
      status: 401,
      body: { error: 'invalid_api_key' },
    });
  } finally {
    release();
    slowLoad.mockRestore();
  }
});

it('signs with the new hmac_secret only, once it is rotated', async () => {
  const created = (await managerA.post<Created>('/api/affiliates', { name: 'Resigned' })).body;
  const rotated = (
    await managerA.post<Created>(`/api/affiliates/${created.id}/rotate-key`, { secrets: ['hmac_secret'] })
  ).body;
  const withOldSecret = await new PartnerClient(b.url, {
    api_key: rotated.api_key,
    hmac_secret: created.hmac_secret,
  }).submitLead({});
  expect(withOldSecret.status).toBe(403);
  expect(withOldSecret.body.error).toBe('invalid_signature');
  expect(await new PartnerClient(b.url, rotated).submitLead({})).toMatchObject(PAST_AUTHENTICATION);
});

// Each rotation reads the secrets it replaces and writes the new ones only if they are still those:
// rotations at once take turns, as if one after the other, and a settings change beside them is kept.
it('takes four rotations with a grace at once in turn: the last key and the one it replaced work, no other', async () => {
  const created = (await managerA.post<Created>('/api/affiliates', { name: 'Rotated at once' })).body;
  const [renamed, ...rotations] = await Promise.all([
    managerA.patch(`/api/affiliates/${created.id}`, { name: 'Renamed meanwhile' }),
    ...[0, 1, 2, 3].map(() =>
      managerA.post<{ api_key: string }>(`/api/affiliates/${created.id}/rotate-key`, { grace_seconds: 3600 }),
    ),
  ]);
  expect([renamed, ...rotations].map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
  const keys = [created.api_key, ...rotations.map((r) => r.body.api_key)];
  const answers = await Promise.all(
    keys.map((api_key) => new PartnerClient(b.url, { ...created, api_key }).submitLead({})),
  );
  expect(answers.filter((a) => a.status === PAST_AUTHENTICATION.status)).toHaveLength(2);
  expect(answers.filter((a) => a.status === 401)).toHaveLength(3);
  expect(answers[0]!.status).toBe(401); // the second rotation ended the first one's grace
  expect((await managerA.get(`/api/affiliates/${created.id}`)).body).toMatchObject({ name: 'Renamed meanwhile' });
});

it('never takes a manager token as a partner key, nor a partner key as a manager token', async () => {
  const created = (await managerA.post<Created>('/api/affiliates', { name: 'Walled' })).body;
  const managerAsPartner = await new PartnerClient(b.url, {
    api_key: MANAGER_TOKEN,
    hmac_secret: created.hmac_secret,
  }).submitLead({});
  expect(managerAsPartner.status).toBe(401);
  expect(managerAsPartner.body.error).toBe('invalid_api_key');
  const partnerAsManager = await managerA.withToken(created.api_key).get('/api/affiliates');
  expect(partnerAsManager.status).toBe(401);
  expect(partnerAsManager.body.error).toBe('manager_unauthorized');
});

it('disabling a partner shuts it out on the other instance at once', async () => {
  const created = (await managerA.post<Created>('/api/affiliates', { name: 'Switched off' })).body;
  const onB = new PartnerClient(b.url, created);
  expect(await onB.submitLead({})).toMatchObject(PAST_AUTHENTICATION);
  await managerA.patch(`/api/affiliates/${created.id}`, { disabled: true });
  expect(await onB.submitLead({})).toMatchObject({ status: 403, body: { error: 'partner_disabled' } });
});
