import { eventsOf } from '../../src/processor/lead-events';
import { ReportLeadStore } from '../../src/processor/reports/report-lead-store';
import { ReportProjector } from '../../src/processor/reports/report-projector';
import { writerChunks } from '../../src/processor/reports/report-deltas';
import { CellStore, cellsCollection, cellsOf, type CellDoc } from '../../src/shared/reports/cell-store';
import { ALL_CELLS } from '../../src/shared/reports/cell-keys';
import type { LeadDoc } from '../../src/shared/mongo/documents';
import type { IntakeRefusal, LeadEvent, ReportDelta } from '../../src/shared/schemas';
import { scenarioLeadDoc, SCENARIO_LEADS, ZONES } from '../support/report-scenario';
import { startTestApp, type TestApp } from '../support/test-app';

// The reports on the real store when a projector dies: the reading one between publishing a chunk's
// deltas and writing report_leads (the chunk read again, cut and joined differently, is published
// again), and the counter documents' one between writing the counts and committing its offsets on
// reports.deltas (the messages read again from the last commit, cut otherwise): each lead counts once.
// A database of its own; the app gives the store and the logger, no consumer; the repartition topic
// is the list of what was published, in order.
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'ingress' });
});

afterAll(async () => {
  await app?.destroy();
});

describe('exactly once', () => {
  it('counts a chunk once when the projectors die before their offsets move, whichever step they reached', async () => {
    const db = app.runtime.mongo.client.db(`${app.config.mongo.db}_crash`);
    try {
      const cells = new CellStore(cellsCollection(db));
      const store = new ReportLeadStore(db, db.collection<LeadDoc>('leads'));
      const topic: ReportDelta[] = [];
      const projector = new ReportProjector({
        publish: async (deltas) => void topic.push(...deltas),
        leads: store,
        partnerById: async () => ({ time_zone: ZONES.a }),
        logger: app.runtime.logger,
      });
      const doc = scenarioLeadDoc(SCENARIO_LEADS[0]!, 'pa-crash');
      await db.collection<LeadDoc>('leads').insertOne(doc);
      const chunk = eventsOf(doc).map((event: LeadEvent, i) => ({ partition: 0, offset: 40 + i, event }));
      const refusal = {
        partition: 3,
        offset: 7,
        refusal: {
          refusal_id: 'r-1',
          partner_id: 'pa-crash',
          status: 'duplicate',
          reason: 'phone',
          country_code: 'DE',
          source: 'google',
          at: doc.created_at.toISOString(),
        } satisfies IntakeRefusal,
      };
      await projector.project(chunk, [refusal]); // joined with another topic's partition
      await store.states.deleteMany({ _id: doc._id }); // as if report_leads had never been written
      await projector.project(chunk.slice(0, 3), []); // the replay, cut and joined differently
      await projector.project(chunk.slice(3), [refusal]);
      expect(topic.length).toBeGreaterThan(3); // every delta published at least twice
      // Every message in one chunk (each delta there twice), its counts written, then its offsets not
      // committed: read again from the start, cut otherwise.
      await cells.addOnce(writerChunks(topic));
      await cells.addOnce(writerChunks(topic.slice(0, 2)));
      for (let i = 0; i < topic.length; i++) await cells.addOnce(writerChunks(topic.slice(i, i + 1)));
      const stored = await db.collection<CellDoc>('report_cells').find({}).toArray();
      expect(stored.map((c) => c._id.split('|')[0]).sort()).toEqual(['b16', 'b4', 'd', 'm', 'tb16', 'tb4', 'td', 'tm']); // the lead's day, blocks and month, cells and totals
      for (const cell of stored) {
        const field = cell._id.startsWith('t') ? ALL_CELLS : 'DE|google';
        expect(cellsOf(cell).lead[field]).toMatchObject({
          received: 1,
          accepted: 1,
          contacted: 1,
          ftd: 1,
          rtd: 2,
          chargebacks: 1,
        });
        expect(cellsOf(cell).refusal[field]).toEqual({ received: 1, duplicates: 1 });
        expect(cell.o).toEqual({ p0: 40 + chunk.length - 1, i3: 7 });
      }
      expect((await store.byIds([doc._id])).get(doc._id)?.through).toBe(doc.history.length - 1);
    } finally {
      await db.dropDatabase();
    }
  });
});
