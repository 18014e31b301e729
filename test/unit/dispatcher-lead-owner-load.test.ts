import { LeadOwner, type LeadOwnerDeps } from '../../src/dispatcher/lead-owner';
import { NO_LEASE } from '../../src/shared/kafka/membership-lease';
import { createLogger } from '../../src/shared/logger';
import type { DeliveryBlockDoc, DeliveryDoc } from '../../src/shared/mongo/delivery-doc';
import { HELD_FOR_PAUSED_ENDPOINT } from '../../src/shared/mongo/delivery-doc';
import { heldRecord, waitingRecord } from '../support/lead-shell';

// Partitions that come back (a rebalance) read their leads' blocks back, and the blockers' records
// with them in bulk: a partner with a large held backlog costs a read per thousand leads, not one
// read each in turn.
const LEADS = 2500;
const blocks: DeliveryBlockDoc[] = Array.from({ length: LEADS }, (_, i) => ({
  _id: `pa-1:le-${i}`,
  partner_id: 'pa-1',
  lead_id: `le-${i}`,
  partition: 2,
  blocker: `dl-${i}`,
  held: [],
  updated_at: new Date(0),
}));
// Every other blocker is parked (its endpoint held), the others wait on the retry path.
const recordOf = (id: string): DeliveryDoc =>
  Number(id.slice(3)) % 2 === 0 ? heldRecord(id, HELD_FOR_PAUSED_ENDPOINT) : waitingRecord(id);

it("reads the blockers' records of a partition's blocks back in bulk, and parks the leads whose endpoint holds", async () => {
  const reads = { one: 0, many: [] as number[] };
  const deps = {
    lease: NO_LEASE,
    logger: createLogger('silent'),
    blocks: { claim: async () => 1, forPartitions: async () => blocks },
    backlogStore: { stamp: async () => undefined, forPartition: async () => [] },
    store: {
      get: async (id: string) => (reads.one++, recordOf(id)),
      getMany: async (ids: readonly string[]) => (reads.many.push(ids.length), ids.map(recordOf)),
    },
    hold: { holds: () => true, onRelease: () => undefined },
  } as unknown as LeadOwnerDeps;
  const owner = new LeadOwner(deps);
  owner.assigned([2]);
  for (let i = 0; i < 50 && owner.heldForPausedEndpoints().size === 0; i++) await new Promise((r) => setImmediate(r));
  await new Promise((r) => setTimeout(r, 20));
  expect(reads).toEqual({ one: 0, many: [1000, 1000, 500] });
  expect(owner.blockedLeads()).toBe(LEADS);
  expect(owner.heldForPausedEndpoints()).toEqual(new Map([['pa-1', { 2: LEADS / 2 }]]));
});
