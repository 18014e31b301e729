import { untilDone } from '../../shared/retriable';
import type { BacklogReplay } from './backlog-replay';
import type { BacklogStore } from './backlog-store';
import type { BlockStore } from './block-store';
import type { CarryOut } from './carry-out';
import type { LeadWrites } from './lead-writes';
import { leadKey, type OwnedPartitions } from './owned-partitions';

// Blockers' records read back per read of the store (in chunks of its `$in`), as partitions come back.
const BLOCKERS_PER_READ = 1000;

export interface ReadBackDeps {
  blocks: BlockStore;
  backlogStore: BacklogStore;
  committed(partition: number): Promise<number>; // the event consumer's committed offset on leads.events
}

// What a partition assigned to the lead owner reads back from the store, once per assignment, before
// its batches go on: its epoch (the fence of its block writes), its leads' blocks with their blockers'
// records in bulk, then its endpoints' backlogs, which join lines that know their blockers.
export class PartitionReadBack {
  constructor(
    private readonly deps: ReadBackDeps,
    private readonly writes: LeadWrites,
    private readonly carryOut: CarryOut,
    private readonly replay: BacklogReplay,
  ) {}

  load(a: OwnedPartitions, partition: number): Promise<void> {
    return a.loadOnce(partition, () => this.read(a, partition));
  }

  private async read(a: OwnedPartitions, partition: number): Promise<void> {
    const { blocks, backlogStore } = this.deps;
    const epoch = await untilDone(() => blocks.claim(partition), this.writes.retrying('claim partition'));
    a.claimed(partition, epoch);
    await untilDone(() => backlogStore.stamp(partition, epoch), this.writes.retrying('stamp backlogs'));
    const found = await untilDone(() => blocks.forPartitions([partition]), this.writes.retrying('load blocks'));
    for (let i = 0; i < found.length; i += BLOCKERS_PER_READ) {
      const chunk = found.slice(i, i + BLOCKERS_PER_READ);
      const records = await this.writes.readMany(chunk.map((b) => b.blocker));
      chunk.forEach((b, n) => {
        const lead = { a, key: leadKey(b.partner_id, b.lead_id), endpoint: b.partner_id, partition };
        a.lines.load(lead.key, { blocker: b.blocker, held: b.held });
        this.carryOut.blockerRead(lead, b.blocker, records[n] ?? null);
      });
    }
    await this.backlogs(a, partition);
  }

  private async backlogs(a: OwnedPartitions, partition: number): Promise<void> {
    const { backlogStore, committed } = this.deps;
    const backlogs = await untilDone(() => backlogStore.forPartition(partition), this.writes.retrying('load backlogs'));
    if (backlogs.length === 0) return;
    const from = await untilDone(() => committed(partition), this.writes.retrying('read offsets'));
    for (const b of backlogs) this.replay.restore(a, b.endpoint, partition, b.from, from);
  }
}
