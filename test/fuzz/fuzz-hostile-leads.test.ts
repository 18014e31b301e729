import fc from 'fast-check';
import { consumerGroupsOf } from '../../src/shared/kafka/consumer-groups';
import { CallbackReceiver } from '../support/callback-receiver';
import { servicesOf } from '../support/manager-services';
import { PartnerClient } from '../support/partner-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

// Hostile but valid JSON leads, generated (fast-check, fixed seed), through the whole pipeline of
// one app: intake, the processor, callbacks and postbacks filled with every tracking macro. Lone
// surrogates, NUL, bidi marks, macro and path look-alikes, 64 KiB values, in every field. Every
// answer is a documented intake result (accepted, duplicate, or 422/413 naming what is wrong),
// never a 5xx; afterwards every consumer group's committed offset reaches the end of every
// partition it reads: no record holds a partition. HOSTILE_RUNS sets the number of leads (CI: 300;
// docs/testing.md gives the longer run).
const RUNS = Number(process.env.HOSTILE_RUNS ?? 300);
const SEED = Number(process.env.HOSTILE_SEED ?? 20261127);

let app: TestApp;
let receiver: CallbackReceiver;
let partner: PartnerClient;

beforeAll(async () => {
  app = await startTestApp({
    ROLE: 'all',
    CALLBACK_RETRY_DELAYS_S: '1,1,1,1',
    CALLBACK_TIMEOUT_MS: '2000',
    INTAKE_REPLY_TIMEOUT_MS: '20000',
  });
  receiver = await new CallbackReceiver().start();
  const macros = 'e={event}&x={external_id}&c={click_id}&s={sub_id}&src={source}&f={funnel}&st={status}';
  const { partner: created, secrets } = await servicesOf(app.runtime).partners.create({
    name: 'Hostile',
    callback_url: receiver.url('/cb'),
    postbacks: { url: `${receiver.url('/pb')}?${macros}` },
    rate_limits: { intake_per_minute: 100000, status_per_minute: 100000 },
  });
  receiver.route('/cb', secrets.callback_secret);
  receiver.route('/pb', secrets.callback_secret);
  await app.runtime.mongo.collections.agents.insertOne({
    _id: `ag-${created.id.slice(3)}`,
    name: 'Hostile agent',
    active: true,
    countries: [],
    languages: [],
    created_at: new Date(),
    updated_at: new Date(),
  });
  partner = new PartnerClient(app.url, secrets);
}, 120_000);

afterAll(async () => {
  await receiver?.stop();
  await app?.destroy();
});

const nasty = fc.constantFrom(
  '\u0000',
  'a\u0000b',
  '\u202e\u2066evil\u2069',
  '\ud800',
  'x\udfffy',
  '\ud83d\ude00',
  '{click_id}',
  '%00%zz',
  '../../x',
  '&a=b#c',
  ' ',
  'x'.repeat(65_536),
);
const text = (maxLength: number) => fc.oneof(nasty, fc.string({ unit: 'binary', maxLength }), fc.string({ maxLength }));
let phone = 10_000_000;
const lead = fc.record(
  {
    external_id: text(128),
    first_name: text(100),
    last_name: text(100),
    source: text(100),
    funnel: text(100),
    click_id: text(200),
    sub_id: text(200),
    language: fc.constantFrom('en', 'de', '\ud800', ''),
    metadata: fc.dictionary(text(40), text(200), { maxKeys: 4 }),
  },
  { requiredKeys: [] },
);

const DOCUMENTED = new Set([200, 409, 413, 422]);

it('answers every hostile lead with a documented result and holds no partition', async () => {
  const answers: Record<number, number> = {};
  await fc.assert(
    fc.asyncProperty(lead, async (fields) => {
      const res = await partner.submitLead({ phone: `+49151${phone++}`, country: 'DE', ...fields });
      answers[res.status] = (answers[res.status] ?? 0) + 1;
      expect({ status: res.status, documented: DOCUMENTED.has(res.status) }).toEqual({
        status: res.status,
        documented: true,
      });
    }),
    { seed: SEED, numRuns: RUNS, endOnFailure: true },
  );
  expect(answers[200] ?? 0).toBeGreaterThan(RUNS / 10); // enough of them went all the way through

  const rt = app.runtime;
  const groups = consumerGroupsOf(['processor', 'dispatcher'], rt.config.kafka.topicPrefix, rt.topics);
  let behind: string[] = [];
  await until(
    async () => {
      behind = [];
      for (const { group, topics } of groups) {
        for (const topic of topics) {
          const ends = await rt.admin.fetchTopicOffsets(topic);
          const [committed] = await rt.admin.fetchOffsets({ groupId: group, topics: [topic] });
          for (const end of ends) {
            const at = Number(committed?.partitions.find((p) => p.partition === end.partition)?.offset ?? -1);
            if (Number(end.high) > 0 && at < Number(end.high))
              behind.push(`${group} ${topic}[${end.partition}] at ${at} of ${end.high}`);
          }
        }
      }
      return behind.length === 0;
    },
    90_000,
    'every group to commit to the end of every partition',
  ).catch(() => undefined);
  expect(behind).toEqual([]);
  // Each accepted lead's two events went out as a callback and a postback each, or were recorded
  // dead with their reason: none is left queued.
  const deliveries = await rt.mongo.collections.deliveries.find({}).toArray();
  const states: Record<string, number> = {};
  for (const d of deliveries)
    states[`${d.kind ?? 'callback'} ${d.state}`] = (states[`${d.kind ?? 'callback'} ${d.state}`] ?? 0) + 1;
  if (process.env.DRILL_REPORT)
    process.stderr.write(`answers ${JSON.stringify(answers)} deliveries ${JSON.stringify(states)}\n`);
  expect(deliveries.length).toBe(answers[200]! * 4);
  expect(deliveries.filter((d) => d.state === 'queued').map((d) => d._id)).toEqual([]);
}, 600_000);
