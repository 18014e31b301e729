import { newDeliveryDoc } from '../../src/dispatcher/delivery-store';
import { AuditLog } from '../../src/manager/audit-log';
import { DeliveryQueue } from '../../src/manager/delivery-queue';
import { LeadList } from '../../src/manager/lead-list';
import { deliveryId } from '../../src/shared/ids';
import { connectMongo, type Mongo } from '../../src/shared/mongo/client';
import type { DeliveryDoc, LeadDoc } from '../../src/shared/mongo/documents';
import type { LeadEvent } from '../../src/shared/schemas';
import { rebuildLists } from '../../src/shared/store/list-rebuild';
import { testConfig } from '../support/test-config';

// A store written before the list read models (or one whose lists were lost): rebuild-lists lists
// every lead, delivery and audit entry again, and running it twice changes nothing.
let mongo: Mongo;

beforeAll(async () => {
  mongo = await connectMongo(testConfig());
});

afterAll(async () => {
  await mongo.db.dropDatabase();
  await mongo.client.close();
});

it('lists stored leads, deliveries and audit entries that have no entries yet', async () => {
  const c = mongo.collections;
  const at = (n: number) => new Date(Date.UTC(2026, 10, 1) + n * 1000);
  const leads: LeadDoc[] = Array.from({ length: 2500 }, (_, i) => ({
    _id: `le-${i + 1}`,
    seq: i + 1,
    partner_id: i % 2 ? 'pa-odd' : 'pa-even',
    external_id: `x${i}`,
    idempotency_key: `k${i}`,
    status: i % 10 === 0 ? 'ftd' : 'assigned',
    is_depositor: i % 10 === 0,
    client_id: null,
    agent_id: 'ag-1',
    reason: null,
    history: [],
    country_code: 'DE',
    source: 'search',
    created_at: at(i),
    updated_at: at(i),
  }));
  await c.leads.insertMany(leads);
  const event = (i: number): LeadEvent => ({
    event_id: `le-${i + 1}:0`,
    event: 'lead.accepted',
    lead_id: `le-${i + 1}`,
    partner_id: 'pa-even',
    external_lead_id: `x${i}`,
    our_status: 'new',
    is_depositor: false,
    occurred_at: at(i).toISOString(),
  });
  await c.deliveries.insertMany(
    Array.from({ length: 300 }, (_, i): DeliveryDoc => {
      const doc = newDeliveryDoc(event(i), 5, at(i), { dueAt: at(i + 60) });
      return i % 3 === 0 ? { ...doc, state: 'dead', next_attempt_at: null } : doc;
    }),
  );
  await c.audit.insertMany(
    Array.from({ length: 50 }, (_, i) => ({
      _id: `au-${i}`,
      at: at(i),
      actor: 'token:x',
      action: 'partner.update',
      partner_id: 'pa-even',
      target: null,
      details: {},
    })),
  );

  const isTerminal = () => false;
  const summary = await rebuildLists(c, isTerminal);
  expect(summary).toEqual({ leads: 2500, deliveries: 300, audit: 50 });
  expect(await rebuildLists(c, isTerminal)).toEqual(summary);
  const entries = await c.leadList.countDocuments();
  expect(entries).toBe(2500 * 6 + 250 * 2); // l, lp, ls, lps, la, the agent's queue; ld and lpd for depositors

  const list = new LeadList(c.leads, c.leadList);
  const ftd = await list.page({ affiliate_id: 'pa-even', status: 'ftd' }, { limit: 200 });
  expect(ftd.items).toHaveLength(200);
  expect(ftd.items[0]).toMatchObject({ id: 'le-2491', status: 'ftd' });
  expect((await list.agentPage('ag-1', { limit: 5 })).items.map((l) => l.id)).toEqual([
    'le-2500',
    'le-2499',
    'le-2498',
    'le-2497',
    'le-2496',
  ]);

  const queue = new DeliveryQueue(c.deliveries, c.deliveryList);
  const dead = await queue.page({ state: 'dead' }, { limit: 200 });
  expect(dead.items).toHaveLength(100);
  expect(dead.items[0]!.id).toBe(deliveryId('le-298:0', 'pa-even'));
  expect((await new AuditLog(c).list({ affiliate_id: 'pa-even' }, { limit: 100 })).items).toHaveLength(50);
});
