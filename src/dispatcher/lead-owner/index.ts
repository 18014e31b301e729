// Everything about the lead lines of the partitions a dispatcher owns: a shell that reads facts and
// turns batches and commands into inputs (owner.ts); the decisions, pure functions of a lead's line
// and an input, which give the line after it and what it asks for (lead-lines.ts), and which
// deliveries start a round (rounds.ts); the one writer that keeps each line and carries each input
// out as one async turn (carry-out.ts) through the owner's writes and their fences (lead-writes.ts,
// block-store.ts); what a partition reads back when it is assigned (read-back.ts); what is kept per
// assignment of partitions (owned-partitions.ts), and the leads parked for a paused endpoint
// (parked-leads.ts, parked-release.ts).
export { LeadOwner, type LeadOwnerDeps } from './owner';
