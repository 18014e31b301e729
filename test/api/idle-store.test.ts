import type { CommandStartedEvent, Document } from 'mongodb';
import { serviceEnv } from '../setup/services-env';
import { ManagerClient } from '../support/manager-client';
import { PartnerClient } from '../support/partner-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

// "Nothing scans in the background": every role of the all-in-one app, left alone with
// leads stored, sends the store only reads by _id (a point, a list or a range), or reads of the
// small collections that are read whole (one document per partner, agent, endpoint or job).
let app: TestApp;
const commands: CommandStartedEvent[] = [];

const SMALL = new Set([
  'partners',
  'agents',
  'agent_activity',
  'endpoint_health',
  'replay_jobs',
  'delivery_blocks',
  'id_blocks',
]);
const READS = new Set(['find', 'aggregate', 'count', 'distinct', 'delete', 'update', 'findAndModify']);

beforeAll(async () => {
  const url = new URL(serviceEnv().MONGO_URL);
  url.searchParams.set('monitorCommands', 'true');
  app = await startTestApp({ ROLE: 'all', MONGO_URL: url.toString() });
  const manager = new ManagerClient(app.url);
  const partner = (
    await manager.post<{ id: string; api_key: string; hmac_secret: string; callback_secret: string }>(
      '/api/affiliates',
      { name: 'Idle' },
    )
  ).body;
  await manager.post('/api/agents', { name: 'Idle agent' });
  const client = new PartnerClient(app.url, partner);
  for (let i = 0; i < 5; i++)
    expect(
      (await client.submitLead({ external_id: `idle-${i}`, phone: `+4479114${10000 + i}`, country: 'DE' })).body.status,
    ).toBe('accepted');
  await until(
    async () =>
      (await manager.get<{ items: unknown[] }>(`/api/leads?affiliate_id=${partner.id}&status=assigned`)).body.items
        .length === 5,
    20000,
    'the leads to be assigned',
  );
  app.runtime.mongo.client.on('commandStarted', (e) => commands.push(e));
});

afterAll(async () => {
  await app?.destroy();
});

// The filter of a read or write command, whatever its shape.
function filtersOf(e: CommandStartedEvent): Document[] {
  const c = e.command;
  if (
    e.commandName === 'find' ||
    e.commandName === 'count' ||
    e.commandName === 'distinct' ||
    e.commandName === 'findAndModify'
  )
    return [c.filter ?? c.query ?? {}];
  if (e.commandName === 'aggregate') return (c.pipeline as Document[]).flatMap((s) => (s.$match ? [s.$match] : []));
  if (e.commandName === 'update') return (c.updates as Document[]).map((u) => u.q);
  if (e.commandName === 'delete') return (c.deletes as Document[]).map((d) => d.q);
  return [];
}

// By _id: a point or a list (other fields then only check the documents it names), or a range alone.
const byIdOnly = (filter: Document): boolean =>
  typeof filter._id === 'string' ||
  Array.isArray(filter._id?.$in) ||
  (filter._id !== undefined && Object.keys(filter).length === 1);
// A page from the start of the _id index: no filter, in _id order, limited.
const firstPage = (e: CommandStartedEvent): boolean =>
  e.commandName === 'find' &&
  Object.keys(e.command.filter ?? {}).length === 0 &&
  sortKeys(e.command.sort).join() === '_id' &&
  typeof e.command.limit === 'number';
// The driver sends a sort as a Map.
const sortKeys = (sort: unknown): string[] =>
  sort instanceof Map ? [...sort.keys()] : Object.keys((sort ?? {}) as object);

it('reads and writes only by _id, or small collections whole, while idle', async () => {
  await new Promise((r) => setTimeout(r, 12_000));
  const seen = commands.filter((e) => READS.has(e.commandName));
  expect(seen.length).toBeGreaterThan(0); // the periodic work ran (distribution, paused endpoints)
  const scans = seen.flatMap((e) => {
    const collection = String(e.command[e.commandName]);
    if (SMALL.has(collection) || firstPage(e)) return [];
    return filtersOf(e)
      .filter((f) => !byIdOnly(f))
      .map((f) => `${e.commandName} ${collection} ${JSON.stringify(f)}`);
  });
  expect(scans).toEqual([]);
}, 30_000);
