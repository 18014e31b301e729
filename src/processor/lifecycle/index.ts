import type { Collection } from 'mongodb';
import type { Decoded } from '../../shared/kafka/batch-consumer';
import { ServiceError } from '../../shared/errors';
import type { ClientDoc, DepositDoc } from '../../shared/mongo/documents';
import type { LeadAssignment, LeadEvent } from '../../shared/schemas';
import type { Statuses } from '../../shared/status-catalog';
import type { LeadKeyStore } from '../../shared/store/lead-keys';
import type { LeadStore } from '../../shared/store/leads';
import type { AgentRoster } from '../agent-roster';
import type { DedupClaims } from '../dedup-claims';
import type { Assignment } from '../idle-redistribution';
import type { ParkedMessages } from '../parked-messages';
import type { WaitingLeads } from '../waiting-leads';
import {
  decideLead,
  storeStandsBehind,
  type DecideContext,
  type DecidedLead,
  type Input,
  type LifecycleOutcome,
  type Refusal,
} from './decide';
import { LeadCache, type ChunkOrigin } from './lead-cache';
import { LoadStep } from './load';
import { PersistStep, type Settled } from './persist';
import type { LifecycleMessage } from './records';

export type { LifecycleMessage };

export interface AppliedChunk {
  events: LeadEvent[];
  feed: LeadAssignment[]; // crm.lead-assignments: published with the events, in one produce request
  refused: Refusal[];
  outcomes: { record: Decoded<LifecycleMessage>; outcome: LifecycleOutcome }[];
  // Assignments this chunk made (or made before, when replayed) or kept: each is checked again
  // once the idle time is up.
  idle: Assignment[];
  // Idle leads no other agent could take: they stay with their agent until the next check.
  kept: number;
}

export interface LifecycleDeps {
  leads: LeadStore;
  parked: ParkedMessages;
  parkMaxMs: number;
  clients: Collection<ClientDoc>;
  deposits: Collection<DepositDoc>;
  waiting: WaitingLeads;
  roster: AgentRoster;
  statuses: Statuses;
  keys: LeadKeyStore;
  claims: DedupClaims;
}

const CACHE_LIMIT = 50_000;
// Rounds of reading a lead again after another writer changed it, before the chunk is retried whole.
const MAX_ROUNDS = 5;

export class LeadContendedError extends ServiceError {
  constructor(leadIds: string[]) {
    super(
      'lead_contended',
      `leads changed by another writer ${MAX_ROUNDS} times in a row: ${leadIds.slice(0, 5).join(', ')}`,
      { retriable: true },
    );
    this.name = 'LeadContendedError';
  }
}

// Everything that changes a lead after intake, applied by the one owner of the lead's partition of
// the CRM topics and the lead command topic (a co-partitioned consumer): agent actions, deposits
// and chargebacks, assignment of waiting leads, parked messages tried again, erasure of personal
// data (the lead's key destroyed, its claims deleted, its hashes and ciphertexts removed; status,
// history and events stay, no event is announced, and a lead with an agent leaves it). A message that cannot
// apply yet (its lead is not created yet, a chargeback before the first deposit) is parked, not
// dropped, and dead-lettered only once CRM_PARK_MAX_MS is up. A chunk is
//   loaded (load.ts: parked messages named, leads from this partition's memory or the store) ->
//   decided per lead (decide.ts, pure) -> persisted (persist.ts: one insert each for new clients and
//   deposits, one fenced update per changed lead, then the waiting and parked lists).
// The store, not memory, decides: a change is fenced (one writer per lead), and a verdict with no
// write, taken on a lead from memory, is taken again on the lead as stored.
export class Lifecycle {
  private readonly cache = new LeadCache(CACHE_LIMIT);
  private readonly load: LoadStep;
  private readonly persist: PersistStep;

  constructor(private readonly d: LifecycleDeps) {
    this.load = new LoadStep(d, this.cache);
    this.persist = new PersistStep(d);
  }

  // The member's partitions after a join of its group (`generation`, as its batches carry it).
  assigned(partitions: Iterable<number>, generation: number): void {
    this.cache.assigned(partitions, generation);
  }

  async apply(records: readonly Decoded<LifecycleMessage>[], at: ChunkOrigin, now: Date): Promise<AppliedChunk> {
    try {
      return await this.applyChunk(records, at, now);
    } catch (err) {
      this.cache.clear(at.partition);
      throw err;
    }
  }

  // Each lead's messages are applied in order against the lead as last stored. A lead whose update
  // is refused (it changed since it was read: another writer) is read again and its messages decided
  // again; the other leads' changes stand.
  private async applyChunk(
    records: readonly Decoded<LifecycleMessage>[],
    at: ChunkOrigin,
    now: Date,
  ): Promise<AppliedChunk> {
    const out: AppliedChunk = { events: [], feed: [], refused: [], outcomes: [], idle: [], kept: 0 };
    const { inputs, gone } = await this.load.inputs(records);
    out.outcomes.push(...gone.map((record) => ({ record, outcome: 'unchanged' as const })));
    let open = new Map<string, Input[]>();
    for (const input of inputs) {
      const id = input.record.value.lead_id;
      open.set(id, [...(open.get(id) ?? []), input]);
    }
    await this.d.roster.current();
    const ctx: DecideContext = {
      statuses: this.d.statuses,
      parkMaxMs: this.d.parkMaxMs,
      partition: at.partition,
      now,
      takeAgent: (lead, time, except) => this.d.roster.take(lead, time, except ?? null),
    };
    const settled: Settled = { unwaited: [], park: [], unpark: [] };
    for (let round = 1; open.size > 0; round++) {
      if (round > MAX_ROUNDS) throw new LeadContendedError([...open.keys()]);
      const read = await this.load.leads([...open.keys()], at);
      const decided = [...open].map(([id, group]) => decideLead(id, group, read.get(id)?.lead, ctx));
      // Leads to read again from the store: decided from memory to no write, or refused by the store.
      const again = new Set(
        decided.filter((d) => read.get(d.leadId)?.cached && !storeStandsBehind(d)).map((d) => d.leadId),
      );
      const deciding = decided.filter((d) => !again.has(d.leadId));
      const stored = await this.persist.write(deciding, now);
      for (const d of deciding) {
        const lead = stored.get(d.leadId);
        if (lead === null) {
          again.add(d.leadId);
          continue;
        }
        if (lead) this.cache.remember(at, lead);
        if (lead && d.leavesWaiting) settled.unwaited.push(d.leadId);
        collect(out, settled, d);
      }
      for (const id of again) this.cache.forget(at.partition, id);
      open = new Map([...open].filter(([id]) => again.has(id)));
    }
    await this.persist.settle(settled);
    return out;
  }
}

function collect(out: AppliedChunk, settled: Settled, d: DecidedLead): void {
  out.events.push(...d.events);
  out.feed.push(...d.feed);
  out.refused.push(...d.refused);
  out.outcomes.push(...d.outcomes);
  out.idle.push(...d.idle);
  out.kept += d.kept;
  settled.park.push(...d.park);
  settled.unpark.push(...d.unpark);
}
