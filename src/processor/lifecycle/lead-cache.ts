import type { LeadDoc } from '../../shared/mongo/documents';

// Where a chunk comes from: its partition, and the join of the group it was fetched under (a
// batch consumer's BatchContext).
export interface ChunkOrigin {
  partition: number;
  generation: number;
}

// The leads as this owner last read or wrote them, kept per partition of the CRM topics and only
// while the partition stays this member's (CONTRIBUTING.md: memory is a cache of the log). At a join a partition given away takes
// its leads with it; a lead is kept only from a chunk fetched while the partition has been ours
// without a break, so a chunk that outlived a rebalance cannot bring back what another owner may
// have changed meanwhile. Memory only saves reads: the store decides (decide.ts, index.ts).
export class LeadCache {
  private readonly partitions = new Map<number, { since: number; leads: Map<string, LeadDoc> }>();
  private size = 0;

  constructor(private readonly limit: number) {}

  // The member's partitions after a join (`generation`): those it no longer has are dropped, those
  // it had before are kept (eager rebalances revoke all at every join, but nobody else had them).
  assigned(partitions: Iterable<number>, generation: number): void {
    const now = new Set(partitions);
    for (const p of [...this.partitions.keys()]) if (!now.has(p)) this.drop(p);
    for (const p of now) if (!this.partitions.has(p)) this.partitions.set(p, { since: generation, leads: new Map() });
  }

  get(partition: number, id: string): LeadDoc | undefined {
    return this.partitions.get(partition)?.leads.get(id);
  }

  remember(at: ChunkOrigin, lead: LeadDoc): void {
    const part = this.partitions.get(at.partition);
    if (!part || at.generation < part.since) return;
    this.size -= Number(part.leads.delete(lead._id));
    part.leads.set(lead._id, lead);
    this.size++;
    if (this.size > this.limit) this.evictOldest();
  }

  forget(partition: number, id: string): void {
    const part = this.partitions.get(partition);
    if (part?.leads.delete(id)) this.size--;
  }

  // Everything of one partition (its chunk failed: what it cached may be a change never stored).
  clear(partition: number): void {
    const part = this.partitions.get(partition);
    if (!part) return;
    this.size -= part.leads.size;
    part.leads.clear();
  }

  private drop(partition: number): void {
    this.clear(partition);
    this.partitions.delete(partition);
  }

  // The least recently kept lead of the partition that keeps the most.
  private evictOldest(): void {
    let largest: Map<string, LeadDoc> | undefined;
    for (const { leads } of this.partitions.values()) if (!largest || leads.size > largest.size) largest = leads;
    const oldest = largest?.keys().next();
    if (largest && oldest && !oldest.done && largest.delete(oldest.value)) this.size--;
  }
}
