import { randomUUID } from 'node:crypto';
import { PartnerClient } from '../support/partner-client';
import { ScriptedProcessor } from '../support/scripted-processor';
import { startTestApp, type TestApp } from '../support/test-app';
import { testConfig } from '../support/test-config';
import { servicesOf } from '../support/manager-services';

// Intake cohorts on (INTAKE_COHORT_MS): requests close together wait for one window and set out
// together (one Redis write for their admissions, one produce request for their commands). Each
// still gets its own decision, once, and its own replay.
let app: TestApp;
let processor: ScriptedProcessor;
let client: PartnerClient;
let seq = 0;

beforeAll(async () => {
  app = await startTestApp({}, testConfig({ ROLE: 'ingress', INTAKE_COHORT_MS: '100' }));
  processor = await new ScriptedProcessor(app.runtime, () => ({
    outcome: 'accepted',
    lead_id: `le-${500 + ++seq}`,
    reason: null,
  })).start();
  const partner = await servicesOf(app.runtime).partners.create({
    name: 'Cohort',
    rate_limits: { intake_per_minute: 1000 },
  });
  client = new PartnerClient(app.url, partner.secrets);
});

afterAll(async () => {
  await processor?.stop();
  await app?.destroy();
});

it('answers every request of a cohort with its own decision, and replays each', async () => {
  const sent = Array.from({ length: 10 }, (_, i) => ({
    key: randomUUID(),
    body: { phone: `+4915113${String(700000 + i)}` },
  }));
  const first = await Promise.all(sent.map((s) => client.submitLead(s.body, { idempotencyKey: s.key })));
  for (const res of first) expect(res).toMatchObject({ status: 200, body: { status: 'accepted', reason: null } });
  const ids = first.map((res) => res.body.id as string);
  expect(new Set(ids).size).toBe(sent.length);
  for (const s of sent) expect(processor.commandsFor(s.key)).toHaveLength(1);

  const again = await Promise.all(sent.map((s) => client.submitLead(s.body, { idempotencyKey: s.key })));
  again.forEach((res, i) => expect(res).toMatchObject({ status: 200, body: { id: ids[i], replay: true } }));
  for (const s of sent) expect(processor.commandsFor(s.key)).toHaveLength(1);
});
