import type { Collection } from 'mongodb';
import { insertAllNew } from '../../shared/mongo/bulk';
import type { ClientDoc, DepositDoc, LeadDoc, ParkedMessageDoc } from '../../shared/mongo/documents';
import type { LeadKeyStore } from '../../shared/store/lead-keys';
import type { LeadStore } from '../../shared/store/leads';
import type { DedupClaims } from '../dedup-claims';
import type { ParkedMessages } from '../parked-messages';
import type { WaitingLeads } from '../waiting-leads';
import type { DecidedLead } from './decide';

export interface PersistDeps {
  leads: Pick<LeadStore, 'apply'>;
  clients: Collection<ClientDoc>;
  deposits: Collection<DepositDoc>;
  keys: Pick<LeadKeyStore, 'destroy'>;
  claims: Pick<DedupClaims, 'forget'>;
  waiting: Pick<WaitingLeads, 'remove'>;
  parked: Pick<ParkedMessages, 'park' | 'remove'>;
}

// What a chunk leaves once all its leads are stored: leads no longer waiting for an agent, messages
// to park and parked messages done with.
export interface Settled {
  unwaited: string[];
  park: ParkedMessageDoc[];
  unpark: string[];
}

// The persist step of a lifecycle chunk: one insert each for new deposits and clients (unique _id),
// then one fenced update per changed lead (LeadStore.apply); at the end, the waiting and parked lists.
export class PersistStep {
  constructor(private readonly d: PersistDeps) {}

  // Each changed lead as stored now, by id; null where another writer changed it since it was read
  // (nothing of that change was written).
  async write(decided: readonly DecidedLead[], now: Date): Promise<Map<string, LeadDoc | null>> {
    // Deposits before the clients they create: whoever finds a client also finds its first deposit.
    await insertAllNew(
      this.d.deposits,
      decided.flatMap((d) => d.deposits),
    );
    await insertAllNew(
      this.d.clients,
      decided.flatMap((d) => d.clients),
    );
    const changes = decided.flatMap((d) => (d.change ? [d.change] : []));
    // The key goes first: from then on nothing can read the lead, whatever happens next.
    const erasing = changes.flatMap((c) => (c.erase ? [c.lead] : []));
    await this.d.keys.destroy(erasing);
    await this.d.claims.forget(erasing);
    const stored = await this.d.leads.apply(changes, now);
    return new Map(changes.map((c, i) => [c.lead._id, stored[i] ?? null]));
  }

  async settle({ unwaited, park, unpark }: Settled): Promise<void> {
    await this.d.waiting.remove(unwaited);
    await this.d.parked.park(park);
    await this.d.parked.remove(unpark);
  }
}
