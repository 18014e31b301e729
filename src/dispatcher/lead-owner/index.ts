// The owner of the dispatcher's lead lines: a shell that reads facts and turns batches and commands
// into inputs (owner.ts), the pure plan of what each input means (plan.ts), and the one writer that
// carries a plan out (carry-out.ts).
export { LeadOwner, type LeadOwnerDeps } from './owner';
