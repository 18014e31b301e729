import { processorParts, type ProcessorParts } from '../../src/processor';
import { intakeCommand } from '../support/intake-commands';
import { startTestApp, type TestApp } from '../support/test-app';
import { servicesOf } from '../support/manager-services';

// Soak on a clock of our own: leads keep coming, day after day, through the processor's real intake
// and housekeeping against the real MongoDB-wire server. What is kept only for a window (dedup claims:
// 30 days; intake decisions: the 24-hour idempotency window) must level off, while the leads
// themselves keep growing: nothing is expired by a TTL index or found by a scan.
const DAY_MS = 86_400_000;
const PER_DAY = 40;
let app: TestApp;
let parts: ProcessorParts;
let partner: string;

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'processor' });
  partner = (await servicesOf(app.runtime).partners.create({ name: 'Soak' })).partner.id;
  parts = processorParts(app.runtime);
  await parts.roster.refresh();
});

afterAll(async () => {
  await app?.destroy();
});

async function windowedDocs(): Promise<{ claims: number; decisions: number }> {
  const db = app.runtime.mongo.db;
  const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
  const count = async (prefix: string) => {
    let n = 0;
    for (const name of names.filter((x) => x.startsWith(prefix))) n += await db.collection(name).countDocuments({});
    return n;
  };
  return { claims: await count('dedup_claims_'), decisions: await count('intake_decisions_') };
}

it('keeps dedup claims and intake decisions flat over 150 days of leads, while the leads grow', async () => {
  const start = Date.UTC(2026, 0, 1);
  const sizes: { day: number; claims: number; decisions: number; leads: number }[] = [];
  let seq = 0;
  for (let day = 0; day <= 150; day += 5) {
    const now = new Date(start + day * DAY_MS);
    const cmds = Array.from({ length: PER_DAY }, () => {
      const n = ++seq;
      return intakeCommand(app.runtime, partner, {
        phone: `+4479115${String(100000 + n).slice(-6)}`,
        email: `soak${n}@example.com`,
      });
    });
    const chunk = await parts.batch.decide(cmds, now);
    await parts.batch.storeDecisions(chunk.decisions, now);
    expect(chunk.replies.every((r) => r.decision.outcome === 'accepted')).toBe(true);
    await parts.distribution.tick(now);
    sizes.push({ day, ...(await windowedDocs()), leads: await app.runtime.mongo.collections.leads.countDocuments({}) });
  }
  const at = (day: number) => sizes.find((s) => s.day === day)!;
  // Leads are kept: they grow with every day.
  expect(at(150).leads).toBe(31 * PER_DAY);
  // Claims: 2 per lead (phone, email), kept for the 30-day window plus at most one 30-day period.
  for (const s of sizes.filter((x) => x.day >= 90)) expect(s.claims).toBeLessThanOrEqual(2 * PER_DAY * (60 / 5 + 1));
  expect(at(150).claims).toBeLessThanOrEqual(at(90).claims + 2 * PER_DAY * (30 / 5));
  // Decisions: one per command, kept for the 24-hour window: only the last tick's survive a 5-day step.
  for (const s of sizes.filter((x) => x.day >= 10)) expect(s.decisions).toBeLessThanOrEqual(PER_DAY);
}, 120_000);

it('still finds a duplicate from the previous 30-day period after its collection rolled over', async () => {
  const start = Date.UTC(2026, 8, 1);
  const periodStart = Math.ceil(start / (30 * DAY_MS)) * 30 * DAY_MS; // a period boundary
  const first = intakeCommand(app.runtime, partner, { phone: '+447911599001' });
  const before = await parts.batch.decide([first], new Date(periodStart - DAY_MS));
  expect(before.replies[0]!.decision.outcome).toBe('accepted');
  const again = intakeCommand(app.runtime, partner, { phone: '+447911599001' });
  const after = await parts.batch.decide([again], new Date(periodStart + 2 * DAY_MS));
  expect(after.replies[0]!.decision).toMatchObject({
    outcome: 'duplicate',
    lead_id: before.replies[0]!.decision.lead_id,
  });
  const later = intakeCommand(app.runtime, partner, { phone: '+447911599001' });
  const outside = await parts.batch.decide([later], new Date(periodStart + 31 * DAY_MS));
  expect(outside.replies[0]!.decision.outcome).toBe('accepted');
});
