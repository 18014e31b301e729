import { MongoClient } from 'mongodb';
import { WebhookOutbox } from '../../src/alerts/webhook-outbox';
import type { WebhookDoc } from '../../src/alerts/webhook-state';
import { testConfig } from '../support/test-config';

// A claim a dead sender left behind is taken back by one sender only: two that read it while it was
// abandoned both try, and the second finds the lease already moved (src/alerts/webhook-outbox.ts).
const config = testConfig();
let mongo: MongoClient;

beforeAll(async () => {
  mongo = await MongoClient.connect(config.mongo.url);
});

afterAll(async () => {
  await mongo.db(config.mongo.db).dropDatabase();
  await mongo.close();
});

it('gives an abandoned webhook post to one of two senders that read it', async () => {
  const db = mongo.db(config.mongo.db);
  const now = new Date();
  // Two senders' clocks a millisecond apart, so the second's claim would change the document.
  const a = new WebhookOutbox(db, { now: () => now });
  const b = new WebhookOutbox(db, { now: () => new Date(now.getTime() + 1) });
  await a.posts.insertOne({
    _id: 'wh-al-abandoned',
    partner_id: 'p1',
    event: 'alert.endpoint_paused',
    body: {},
    created_at: now,
    attempts_made: 1,
    attempts_left: 4,
    last_error: null,
    last_http_status: null,
    state: 'sending',
    claimed_until: new Date(now.getTime() - 1_000),
  });
  const [seenByA] = await a.due(10);
  const [seenByB] = await b.due(10);
  const claims = [await a.claim(seenByA as WebhookDoc, 30_000), await b.claim(seenByB as WebhookDoc, 30_000)];
  expect(claims).toEqual([true, false]);
});
