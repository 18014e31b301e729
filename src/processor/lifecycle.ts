import type { Collection } from 'mongodb';
import { clientIdForLead } from '../shared/ids';
import type { Decoded } from '../shared/kafka/batch-consumer';
import { insertAllNew } from '../shared/mongo/bulk';
import { testMark, type ClientDoc, type DepositDoc, type LeadDoc, type ParkedMessageDoc, type StatusChange } from '../shared/mongo/documents';
import type { AgentAction, Deposit, LeadAssignment, LeadCommand, LeadEvent } from '../shared/schemas';
import type { Statuses } from '../shared/status-catalog';
import type { LeadKeyStore } from '../shared/store/lead-keys';
import type { LeadChange, LeadStore } from '../shared/store/leads';
import type { AgentRoster } from './agent-roster';
import type { DedupClaims } from './dedup-claims';
import { announce, entriesFrom } from './announcements';
import { erasureEntry } from './assignment-feed';
import { pendingAssignment, stillIdle, type Assignment } from './idle-redistribution';
import { callbackAt, depositDoc, describe, isErase, parkedDoc, recordOf, type LifecycleMessage } from './lifecycle-records';
import { assignment } from './new-lead';
import { supervisorReassign } from './supervisor-reassign';
import { agentMove, depositMove, type Move } from './transitions';
import type { ParkedMessages } from './parked-messages';
import type { WaitingLeads } from './waiting-leads';
import { ServiceError } from '../shared/errors';

export type { LifecycleMessage };
export type LifecycleOutcome = 'applied' | 'repeat' | 'unchanged' | 'parked' | 'refused';

export interface Refusal {
  record: Decoded<LifecycleMessage>;
  reason: string;
  partition?: number; // where a parked message came from, when it is not the chunk's partition
}

// Refusals that may pass: the message is parked and tried again until CRM_PARK_MAX_MS is up.
const WAIT_REASONS = new Set(['unknown_lead', 'chargeback_before_deposit']);

interface Input {
  record: Decoded<LifecycleMessage>;
  parked?: ParkedMessageDoc; // tried again from parked_messages
}

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
    super('lead_contended', `leads changed by another writer ${MAX_ROUNDS} times in a row: ${leadIds.slice(0, 5).join(', ')}`, { retriable: true });
    this.name = 'LeadContendedError';
  }
}

interface Working {
  base: LeadDoc; // as stored when read
  lead: LeadDoc; // with this chunk's changes so far
  entries: StatusChange[];
  set: LeadChange['set'];
  erase: boolean; // an erase command asks for the lead's personal data to go
  announce: number[]; // history entries to announce (events, assignment feed): made now, or before by a repeat
}

interface DecidedLead {
  w: Working | undefined;
  clients: ClientDoc[];
  deposits: DepositDoc[];
  refused: Refusal[];
  outcomes: AppliedChunk['outcomes'];
  park: ParkedMessageDoc[];
  unpark: string[];
  idle: Assignment[];
  kept: number;
}

// Everything that changes a lead after intake, applied by the one owner of the lead's partition of
// the CRM topics and the lead command topic (a co-partitioned consumer): agent actions, deposits
// and chargebacks, assignment of waiting leads, parked messages tried again, erasure of personal
// data (the lead's key destroyed, its claims deleted, its hashes and ciphertexts removed; status,
// history and events stay, no event is announced, and a lead with an agent leaves it). A message that cannot
// apply yet (its lead is not created yet, a chargeback before the first deposit) is parked, not
// dropped, and dead-lettered only once CRM_PARK_MAX_MS is up. A chunk is decided in memory against the leads as
// this owner last wrote them (read once, then cached), and written with one update per changed
// lead plus one insert each for new clients and deposits. Every history entry names the message
// that made it, so a redelivered message is a repeat: nothing changes and what it announced (events,
// assignment feed) goes out again.
export class Lifecycle {
  private readonly cache = new Map<string, LeadDoc>();

  constructor(private readonly d: LifecycleDeps) {}

  private readonly isTerminal = (status: string): boolean => this.d.statuses.isTerminal(status);

  // After a rebalance another owner may have changed leads this one cached.
  forget(): void {
    this.cache.clear();
  }

  async apply(records: readonly Decoded<LifecycleMessage>[], partition: number, now: Date): Promise<AppliedChunk> {
    try {
      return await this.applyChunk(records, partition, now);
    } catch (err) {
      this.forget();
      throw err;
    }
  }

  // Each lead's messages are applied in order against the lead as last stored. A lead whose update
  // is refused (it changed since it was read: another writer) is read again and its messages decided
  // again; the other leads' changes stand.
  private async applyChunk(records: readonly Decoded<LifecycleMessage>[], partition: number, now: Date): Promise<AppliedChunk> {
    const out: AppliedChunk = { events: [], feed: [], refused: [], outcomes: [], idle: [], kept: 0 };
    let open = new Map<string, Input[]>();
    for (const input of await this.unparked(records, out)) {
      const id = input.record.value.lead_id;
      open.set(id, [...(open.get(id) ?? []), input]);
    }
    const unwaited: string[] = []; // leads no longer waiting for an agent: assigned, or erased
    const park: ParkedMessageDoc[] = [];
    const unpark: string[] = [];
    for (let round = 1; open.size > 0; round++) {
      if (round > MAX_ROUNDS) throw new LeadContendedError([...open.keys()]);
      const working = await this.load([...open.keys()]);
      const decided = [...open].map(([id, group]) => this.decideLead(group, working.get(id), partition, now));
      await insertAllNew(this.d.clients, decided.flatMap((g) => g.clients));
      await insertAllNew(this.d.deposits, decided.flatMap((g) => g.deposits));
      const changed = decided.filter((g) => g.w && (g.w.entries.length > 0 || g.w.erase));
      // The key goes first: from then on nothing can read the lead, whatever happens next.
      const erasing = changed.flatMap(({ w }) => (w?.erase ? [w.base] : []));
      await this.d.keys.destroy(erasing);
      await this.d.claims.forget(erasing);
      const stored = await this.d.leads.apply(changed.map(({ w }) => ({ lead: (w as Working).base, entries: (w as Working).entries, set: (w as Working).set, erase: (w as Working).erase })), now);
      const refused = new Set<string>();
      stored.forEach((lead, i) => {
        const { w } = changed[i] as { w: Working };
        if (!lead) refused.add(w.base._id);
        else {
          this.remember(lead);
          w.announce.push(...entriesFrom(lead, w.base.history.length));
          if (w.base.status === 'new' && (lead.status !== 'new' || lead.personal_erased_at)) unwaited.push(lead._id);
        }
      });
      for (const g of decided) {
        if (g.w && refused.has(g.w.base._id)) continue;
        if (g.w) {
          const said = announce(g.w.lead, g.w.announce, this.isTerminal);
          out.events.push(...said.events);
          out.feed.push(...said.feed);
        }
        out.refused.push(...g.refused);
        out.outcomes.push(...g.outcomes);
        out.idle.push(...g.idle);
        out.kept += g.kept;
        park.push(...g.park);
        unpark.push(...g.unpark);
      }
      for (const id of refused) this.cache.delete(id);
      open = new Map([...open].filter(([id]) => refused.has(id)));
    }
    await this.d.waiting.remove(unwaited);
    await this.d.parked.park(park);
    await this.d.parked.remove(unpark);
    return out;
  }

  // The chunk's records with each retry_parked command replaced by the message it names (gone: it
  // was applied or dead-lettered meanwhile).
  private async unparked(records: readonly Decoded<LifecycleMessage>[], out: AppliedChunk): Promise<Input[]> {
    const retries = records.filter((r) => r.topic === 'leadCommands' && (r.value as LeadCommand).kind === 'retry_parked');
    const docs = retries.length > 0 ? await this.d.parked.byIds(retries.map((r) => (r.value as LeadCommand).parked_id ?? '')) : new Map();
    return records.flatMap((record): Input[] => {
      if (!retries.includes(record)) return [{ record }];
      const parked = docs.get((record.value as LeadCommand).parked_id ?? '');
      if (!parked) {
        out.outcomes.push({ record, outcome: 'unchanged' });
        return [];
      }
      return [{ record: recordOf(parked), parked }];
    });
  }

  // One lead's messages of the chunk, in order, against its working copy.
  private decideLead(group: Input[], w: Working | undefined, partition: number, now: Date): DecidedLead {
    const g: DecidedLead = { w, clients: [], deposits: [], refused: [], outcomes: [], park: [], unpark: [], idle: [], kept: 0 };
    for (const { record, parked } of group) {
      const verdict = w ? this.applyOne(record, w, now, g) : { refused: 'unknown_lead' };
      const outcome = typeof verdict === 'string' ? verdict : this.refusal(record, verdict.refused, parked, partition, now, g);
      if (parked && outcome !== 'parked') g.unpark.push(parked._id);
      g.outcomes.push({ record, outcome });
    }
    // An assignment made by one of these messages (now, or before when they are repeats) is watched.
    const pending = w && pendingAssignment(w.lead);
    if (pending && group.some(({ record }) => describe(record).source === w.lead.history[pending.seq]?.source)) g.idle.push(pending);
    return g;
  }

  // A refusal that may pass parks the message (or leaves it parked) until its time is up; any other
  // refusal, or one whose time is up, dead-letters it.
  private refusal(record: Decoded<LifecycleMessage>, reason: string, parked: ParkedMessageDoc | undefined, partition: number, now: Date, g: DecidedLead): LifecycleOutcome {
    const since = parked?.parked_at.getTime() ?? now.getTime();
    if (WAIT_REASONS.has(reason) && record.topic !== 'leadCommands' && now.getTime() - since < this.d.parkMaxMs) {
      if (!parked) g.park.push(parkedDoc(record as Decoded<AgentAction | Deposit>, reason, partition, now));
      return 'parked';
    }
    g.refused.push({ record, reason, partition: parked?.source.partition ?? partition });
    return 'refused';
  }

  private applyOne(record: Decoded<LifecycleMessage>, w: Working, now: Date, g: DecidedLead): Exclude<LifecycleOutcome, 'refused' | 'parked'> | { refused: string } {
    if (isErase(record)) return this.erase(record, w);
    const { source, why, at } = describe(record);
    const done = w.lead.history.map((h, seq) => ({ h, seq })).filter(({ h }) => h.source === source);
    if (done.length > 0) {
      // Applied before (a redelivery): announce again what it made, which the dispatcher and the CRMs know by id.
      w.announce.push(...done.map(({ seq }) => seq).filter((seq) => seq < w.base.history.length));
      if (record.topic === 'deposits') g.deposits.push(depositDoc(record.value as Deposit, w.lead, now));
      return 'repeat';
    }
    const move = this.decide(record, w.lead, now, g);
    if (move === null) return 'unchanged';
    if (!move.ok) return { refused: move.reason };
    const entry: StatusChange = {
      from: w.lead.status, to: move.to, at, why: move.why ?? (move.agentId ? `assigned to ${move.agentId}` : why), source, event: move.event, is_depositor: move.isDepositor,
    };
    if (move.agentId !== undefined) entry.agent_id = move.agentId;
    const set: LeadChange['set'] = { status: move.to, is_depositor: move.isDepositor };
    // An agent's outcome replaces any callback scheduled before (callback_at, or none).
    if (record.topic === 'agentActions') set.callback_at = callbackAt(record.value as AgentAction);
    if (move.createsClient) {
      set.client_id = clientIdForLead(w.lead._id);
      const deposit = record.value as Deposit;
      g.clients.push({ _id: set.client_id, lead_id: w.lead._id, partner_id: w.lead.partner_id, first_deposit_id: deposit.deposit_id, created_at: now, ...testMark(w.lead.test) });
    }
    if (move.agentId !== undefined) set.agent_id = move.agentId;
    w.lead = { ...w.lead, ...set, history: [...w.lead.history, entry] };
    w.entries.push(entry);
    w.set = { ...w.set, ...set };
    // Amounts and currencies stay here, in the deposits collection; no event or callback carries them.
    if (record.topic === 'deposits') g.deposits.push(depositDoc(record.value as Deposit, w.lead, now));
    return 'applied';
  }

  // Erasure is applied once: a repeat announces again the entry it made. A lead with an agent leaves it
  // (an entry with no event, for the assignment feed); one without gets no entry.
  private erase(record: Decoded<LifecycleMessage>, w: Working): 'applied' | 'repeat' {
    if (w.lead.personal_erased_at || w.erase) {
      const seq = w.lead.history.findIndex((h) => h.erased);
      if (seq >= 0 && seq < w.base.history.length) w.announce.push(seq);
      return 'repeat';
    }
    w.erase = true;
    const made = describe(record);
    const entry = erasureEntry(w.lead, this.isTerminal, made);
    w.lead = { ...w.lead, personal_erased_at: made.at, history: entry ? [...w.lead.history, entry] : w.lead.history };
    if (entry) w.entries.push(entry);
    return 'applied';
  }

  // The move a message asks for; null when it asks for nothing any more (a waiting lead assigned
  // meanwhile, an idle lead worked meanwhile).
  private decide(record: Decoded<LifecycleMessage>, lead: LeadDoc, now: Date, g: DecidedLead): (Move & { agentId?: string; why?: string }) | null {
    if (record.topic === 'agentActions') return agentMove(this.d.statuses, lead, (record.value as AgentAction).status);
    if (record.topic === 'deposits') {
      const deposit = record.value as Deposit;
      return depositMove(this.d.statuses, lead, deposit.type, new Date(deposit.occurred_at));
    }
    const cmd = record.value as LeadCommand;
    if (cmd.kind === 'reassign_idle') return this.reassign(lead, cmd, now, g);
    if (cmd.kind === 'reassign') return supervisorReassign(lead, cmd, this.isTerminal);
    // Nobody can call a lead whose personal data is gone: an erased lead is never given to an agent.
    if (lead.status !== 'new' || lead.personal_erased_at) return null;
    const agent = this.d.roster.take(lead, now);
    if (!agent) return null;
    const { to, event } = assignment(lead.status, agent._id, now, lead.is_depositor);
    return { ok: true, to, event, isDepositor: lead.is_depositor, createsClient: false, agentId: agent._id };
  }

  // An assigned lead not worked for the idle time goes to another eligible agent on shift: the
  // status stays `assigned` and the partner hears nothing (no event); the history records the change
  // of agent. With no other agent it stays, and is checked again one idle time later.
  private reassign(lead: LeadDoc, cmd: LeadCommand, now: Date, g: DecidedLead): (Move & { agentId: string; why: string }) | null {
    if (!stillIdle(lead, cmd)) return null;
    const agent = this.d.roster.take(lead, now, lead.agent_id);
    if (!agent) {
      g.kept++;
      g.idle.push(pendingAssignment(lead) as Assignment);
      return null;
    }
    const since = (lead.history[lead.history.length - 1] as StatusChange).at.toISOString();
    return {
      ok: true, to: 'assigned', event: null, isDepositor: lead.is_depositor, createsClient: false, agentId: agent._id,
      why: `not worked by ${lead.agent_id} since ${since}: reassigned to ${agent._id}`,
    };
  }

  private async load(ids: readonly string[]): Promise<Map<string, Working>> {
    const missing = ids.filter((id) => !this.cache.has(id));
    if (missing.length > 0) for (const lead of (await this.d.leads.byIds(missing)).values()) this.remember(lead);
    const working = new Map<string, Working>();
    for (const id of ids) {
      const lead = this.cache.get(id);
      if (lead && !working.has(id)) working.set(id, { base: lead, lead, entries: [], set: {}, erase: false, announce: [] });
    }
    return working;
  }

  private remember(lead: LeadDoc): void {
    this.cache.delete(lead._id);
    this.cache.set(lead._id, lead);
    if (this.cache.size > CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value as string);
  }
}
