import { clientIdForLead } from '../../shared/ids';
import type { Decoded } from '../../shared/kafka/batch-consumer';
import {
  testMark,
  type ClientDoc,
  type DepositDoc,
  type LeadDoc,
  type ParkedMessageDoc,
  type StatusChange,
} from '../../shared/mongo/documents';
import type { AgentAction, Deposit, LeadAssignment, LeadCommand, LeadEvent } from '../../shared/schemas';
import type { Statuses } from '../../shared/status-catalog';
import type { LeadChange } from '../../shared/store/leads';
import { announce, entriesFrom } from '../announcements';
import { erasureEntry } from '../assignment-feed';
import { pendingAssignment, stillIdle, type Assignment } from '../idle-redistribution';
import { assignment } from '../new-lead';
import { supervisorReassign } from '../supervisor-reassign';
import { agentMove, depositMove, type Move } from '../transitions';
import { callbackAt, depositDoc, describe, isErase, parkedDoc, type LifecycleMessage } from './records';

export type LifecycleOutcome = 'applied' | 'repeat' | 'unchanged' | 'parked' | 'refused';

export interface Refusal {
  record: Decoded<LifecycleMessage>;
  reason: string;
  partition?: number; // where a parked message came from, when it is not the chunk's partition
}

// A message of the chunk, or a parked message tried again (with its parked document).
export interface Input {
  record: Decoded<LifecycleMessage>;
  parked?: ParkedMessageDoc;
}

// Hands a lead to an agent (the roster's round robin, the one state deciding moves); `except` is the
// agent an idle lead is taken from.
export type TakeAgent = (lead: LeadDoc, now: Date, except?: string | null) => { _id: string } | null;

// What deciding takes besides a lead's messages and the lead as read.
export interface DecideContext {
  statuses: Statuses;
  parkMaxMs: number; // how long a refusal that may pass keeps its message parked
  partition: number; // the chunk's
  now: Date;
  takeAgent: TakeAgent;
}

// What one lead's messages of a chunk come to. The events and feed messages go out only once the
// change is stored (or when there is none: repeats announce again what they made).
export interface DecidedLead {
  leadId: string;
  lead: LeadDoc | undefined; // with this chunk's entries; undefined: no such lead
  change: LeadChange | null; // null: nothing to write
  leavesWaiting: boolean; // it waited for an agent and no longer does (assigned, or erased)
  events: LeadEvent[];
  feed: LeadAssignment[];
  clients: ClientDoc[];
  deposits: DepositDoc[];
  refused: Refusal[];
  outcomes: { record: Decoded<LifecycleMessage>; outcome: LifecycleOutcome }[];
  park: ParkedMessageDoc[];
  unpark: string[]; // parked messages done with (applied, or dead-lettered)
  // Assignments these messages made (or made before, when they are repeats) or kept: checked again
  // once the idle time is up.
  idle: Assignment[];
  kept: number; // idle leads no other agent could take
}

// Refusals that may pass: the message is parked and tried again until CRM_PARK_MAX_MS is up.
const WAIT_REASONS = new Set(['unknown_lead', 'chargeback_before_deposit']);

interface Working {
  base: LeadDoc; // as read
  lead: LeadDoc; // with the changes so far
  entries: StatusChange[];
  set: LeadChange['set'];
  erase: boolean; // an erase command asks for the lead's personal data to go
  announce: number[]; // history entries made before that repeats announce again
}

type Verdict = Exclude<LifecycleOutcome, 'refused' | 'parked'> | { refused: string };
type Target = Move & { agentId?: string; why?: string };

// One lead's messages of a chunk, in order, against the lead as read (undefined: not created yet, or
// not ours to know). Every history entry names the message that made it, so a message met again is a
// repeat: nothing changes and what it made is announced again. Pure but for `takeAgent`.
export function decideLead(
  leadId: string,
  group: readonly Input[],
  read: LeadDoc | undefined,
  ctx: DecideContext,
): DecidedLead {
  const g: DecidedLead = {
    leadId,
    lead: read,
    change: null,
    leavesWaiting: false,
    events: [],
    feed: [],
    clients: [],
    deposits: [],
    refused: [],
    outcomes: [],
    park: [],
    unpark: [],
    idle: [],
    kept: 0,
  };
  const w: Working | undefined = read && { base: read, lead: read, entries: [], set: {}, erase: false, announce: [] };
  for (const { record, parked } of group) {
    const verdict: Verdict = w ? applyOne(record, w, ctx, g) : { refused: 'unknown_lead' };
    const outcome = typeof verdict === 'string' ? verdict : refusal(record, verdict.refused, parked, ctx, g);
    if (parked && outcome !== 'parked') g.unpark.push(parked._id);
    g.outcomes.push({ record, outcome });
  }
  if (!w) return g;
  // An assignment made by one of these messages (now, or before when they are repeats) is watched.
  const pending = pendingAssignment(w.lead);
  if (pending && group.some(({ record }) => describe(record).source === w.lead.history[pending.seq]?.source))
    g.idle.push(pending);
  const changed = w.entries.length > 0 || w.erase;
  const said = announce(w.lead, [...w.announce, ...entriesFrom(w.lead, w.base.history.length)], (s) =>
    ctx.statuses.isTerminal(s),
  );
  return {
    ...g,
    lead: w.lead,
    events: said.events,
    feed: said.feed,
    change: changed ? { lead: w.base, entries: w.entries, set: w.set, erase: w.erase } : null,
    leavesWaiting:
      changed && w.base.status === 'new' && (w.lead.status !== 'new' || Boolean(w.lead.personal_erased_at)),
  };
}

// Whether every verdict on the lead is one the store stands behind: a change (its write is fenced)
// or a repeat (the history keeps it for good). Any other (a refusal, a park, nothing to do) rests on
// the lead as read, which a copy kept in memory may no longer be.
export function storeStandsBehind(d: DecidedLead): boolean {
  return d.outcomes.every(({ outcome }) => outcome === 'applied' || outcome === 'repeat');
}

// A refusal that may pass parks the message (or leaves it parked) until its time is up; any other
// refusal, or one whose time is up, dead-letters it.
function refusal(
  record: Decoded<LifecycleMessage>,
  reason: string,
  parked: ParkedMessageDoc | undefined,
  ctx: DecideContext,
  g: DecidedLead,
): LifecycleOutcome {
  const since = parked?.parked_at.getTime() ?? ctx.now.getTime();
  if (WAIT_REASONS.has(reason) && record.topic !== 'leadCommands' && ctx.now.getTime() - since < ctx.parkMaxMs) {
    if (!parked) g.park.push(parkedDoc(record as Decoded<AgentAction | Deposit>, reason, ctx.partition, ctx.now));
    return 'parked';
  }
  g.refused.push({ record, reason, partition: parked?.source.partition ?? ctx.partition });
  return 'refused';
}

function applyOne(record: Decoded<LifecycleMessage>, w: Working, ctx: DecideContext, g: DecidedLead): Verdict {
  if (isErase(record)) return erase(record, w, ctx);
  const { source, why, at } = describe(record);
  const done = w.lead.history.map((h, seq) => ({ h, seq })).filter(({ h }) => h.source === source);
  if (done.length > 0) {
    // Applied before (a redelivery): announce again what it made, which the dispatcher and the CRMs know by id.
    w.announce.push(...done.map(({ seq }) => seq).filter((seq) => seq < w.base.history.length));
    if (record.topic === 'deposits') g.deposits.push(depositDoc(record.value as Deposit, w.lead, ctx.now));
    return 'repeat';
  }
  const move = target(record, w.lead, ctx, g);
  if (move === null) return 'unchanged';
  if (!move.ok) return { refused: move.reason };
  const entry: StatusChange = {
    from: w.lead.status,
    to: move.to,
    at,
    why: move.why ?? (move.agentId ? `assigned to ${move.agentId}` : why),
    source,
    event: move.event,
    is_depositor: move.isDepositor,
  };
  if (move.agentId !== undefined) entry.agent_id = move.agentId;
  const set: LeadChange['set'] = { status: move.to, is_depositor: move.isDepositor };
  // An agent's outcome replaces any callback scheduled before (callback_at, or none).
  if (record.topic === 'agentActions') set.callback_at = callbackAt(record.value as AgentAction);
  if (move.createsClient) {
    set.client_id = clientIdForLead(w.lead._id);
    const deposit = record.value as Deposit;
    g.clients.push({
      _id: set.client_id,
      lead_id: w.lead._id,
      partner_id: w.lead.partner_id,
      first_deposit_id: deposit.deposit_id,
      created_at: ctx.now,
      ...testMark(w.lead.test),
    });
  }
  if (move.agentId !== undefined) set.agent_id = move.agentId;
  w.lead = { ...w.lead, ...set, history: [...w.lead.history, entry] };
  w.entries.push(entry);
  w.set = { ...w.set, ...set };
  // Amounts and currencies stay here, in the deposits collection; no event or callback carries them.
  if (record.topic === 'deposits') g.deposits.push(depositDoc(record.value as Deposit, w.lead, ctx.now));
  return 'applied';
}

// Erasure is applied once: a repeat announces again the entry it made. A lead with an agent leaves it
// (an entry with no event, for the assignment feed); one without gets no entry.
function erase(record: Decoded<LifecycleMessage>, w: Working, ctx: DecideContext): 'applied' | 'repeat' {
  if (w.lead.personal_erased_at || w.erase) {
    const seq = w.lead.history.findIndex((h) => h.erased);
    if (seq >= 0 && seq < w.base.history.length) w.announce.push(seq);
    return 'repeat';
  }
  w.erase = true;
  const made = describe(record);
  const entry = erasureEntry(w.lead, (s) => ctx.statuses.isTerminal(s), made);
  w.lead = { ...w.lead, personal_erased_at: made.at, history: entry ? [...w.lead.history, entry] : w.lead.history };
  if (entry) w.entries.push(entry);
  return 'applied';
}

// The move a message asks for; null when it asks for nothing any more (a waiting lead assigned
// meanwhile, an idle lead worked meanwhile).
function target(record: Decoded<LifecycleMessage>, lead: LeadDoc, ctx: DecideContext, g: DecidedLead): Target | null {
  if (record.topic === 'agentActions') return agentMove(ctx.statuses, lead, (record.value as AgentAction).status);
  if (record.topic === 'deposits') {
    const deposit = record.value as Deposit;
    return depositMove(ctx.statuses, lead, deposit.type, new Date(deposit.occurred_at));
  }
  const cmd = record.value as LeadCommand;
  if (cmd.kind === 'reassign_idle') return reassign(lead, cmd, ctx, g);
  if (cmd.kind === 'reassign') return supervisorReassign(lead, cmd, (s) => ctx.statuses.isTerminal(s));
  // Nobody can call a lead whose personal data is gone: an erased lead is never given to an agent.
  if (lead.status !== 'new' || lead.personal_erased_at) return null;
  const agent = ctx.takeAgent(lead, ctx.now);
  if (!agent) return null;
  const { to, event } = assignment(lead.status, agent._id, ctx.now, lead.is_depositor);
  return { ok: true, to, event, isDepositor: lead.is_depositor, createsClient: false, agentId: agent._id };
}

// An assigned lead not worked for the idle time goes to another eligible agent on shift: the
// status stays `assigned` and the partner hears nothing (no event); the history records the change
// of agent. With no other agent it stays, and is checked again one idle time later.
function reassign(lead: LeadDoc, cmd: LeadCommand, ctx: DecideContext, g: DecidedLead): Target | null {
  if (!stillIdle(lead, cmd)) return null;
  const agent = ctx.takeAgent(lead, ctx.now, lead.agent_id);
  if (!agent) {
    g.kept++;
    g.idle.push(pendingAssignment(lead) as Assignment);
    return null;
  }
  const since = (lead.history[lead.history.length - 1] as StatusChange).at.toISOString();
  return {
    ok: true,
    to: 'assigned',
    event: null,
    isDepositor: lead.is_depositor,
    createsClient: false,
    agentId: agent._id,
    why: `not worked by ${lead.agent_id} since ${since}: reassigned to ${agent._id}`,
  };
}
