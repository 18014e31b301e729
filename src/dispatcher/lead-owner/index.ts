// Everything about the lead lines of the partitions a dispatcher owns: a shell that reads facts and
// turns batches and commands into inputs (owner.ts); the decision of what each input means, which
// moves the lead's line in memory (lead-lines.ts) and returns the steps to take (plan.ts: no I/O);
// the one writer that carries the steps out (carry-out.ts) through the owner's writes and their
// fences (lead-writes.ts, block-store.ts); and what is kept per assignment of partitions
// (owned-partitions.ts, parked-leads.ts).
export { LeadOwner, type LeadOwnerDeps } from './owner';
