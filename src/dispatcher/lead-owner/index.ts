// Everything about the lead lines of the partitions a dispatcher owns: a shell that reads facts and
// turns batches and commands into inputs (owner.ts); the decision of what each input means: a lead's
// line as a state and its pure transition (lead-lines.ts), and the steps each input asks for with
// the line after it (plan.ts, pure too); the one writer that carries the steps out (carry-out.ts) through the owner's writes and their
// fences (lead-writes.ts, block-store.ts); and what is kept per assignment of partitions
// (owned-partitions.ts, parked-leads.ts).
export { LeadOwner, type LeadOwnerDeps } from './owner';
