import { testMark, type DedupClaimDoc, type IntakeDecisionDoc, type LeadDoc, type LeadRisk, type PartnerDoc } from '../shared/mongo/documents';
import { leadId as formatLeadId, leadSeq } from '../shared/ids';
import type { IntakeCommand, IntakeDecision, LeadEvent } from '../shared/schemas';
import { decisionId, type IntakeDecisionStore } from '../shared/store/intake-decisions';
import type { LeadKeyStore } from '../shared/store/lead-keys';
import { leadRefId, type LeadRefStore } from '../shared/store/lead-refs';
import type { LeadStore } from '../shared/store/leads';
import type { AgentRoster } from './agent-roster';
import { rejectionReason, type RuleSet } from './business-rules';
import type { CapGate } from './cap-gate';
import { capCounters, capReason } from './caps';
import type { DedupClaims } from './dedup-claims';
import { pendingAssignment, type Assignment } from './idle-redistribution';
import { eventsOf } from './lead-events';
import { newLeadDoc } from './new-lead';
import type { AssessedLead } from './risk-assessment';
import type { WaitingLeads } from './waiting-leads';

const DAY_MS = 86_400_000;
// A claim whose lead does not exist yet belongs to a command another partition is deciding right
// now; its lead appears within a batch's time, or the claim is given back. Wait this long at most.
const IN_FLIGHT_WAIT_MS = 1500;
const IN_FLIGHT_POLL_MS = 100;
const MAX_PASSES = 4;

export interface IntakeBatchDeps {
  partners: { byId(id: string): Promise<PartnerDoc | null> };
  decisions: IntakeDecisionStore;
  claims: DedupClaims;
  refs: LeadRefStore;
  leads: LeadStore;
  waiting: WaitingLeads;
  roster: AgentRoster;
  caps: Pick<CapGate, 'take'>;
  ids: { allocate(): Promise<number> };
  keys: LeadKeyStore;
  rules: RuleSet & { dedupWindowDays: number };
  // Opens each lead's personal data for the IP rule and the fraud signals.
  risk: { assess(cmds: readonly IntakeCommand[], now: Date): Promise<AssessedLead[]> };
}

export interface DecidedChunk {
  replies: { cmd: IntakeCommand; decision: IntakeDecision; test: boolean }[];
  events: LeadEvent[];
  // Stored last, once the replies and events are out: a stored decision means nothing is owed.
  decisions: IntakeDecisionDoc[];
  // Accepted leads of this chunk handed to an agent at once, and left waiting for one.
  assignments: { assigned: number; no_agent: number };
  // The assignments made at intake (again, for a replayed chunk), to be checked once the idle time is up.
  idle: Assignment[];
  // Commands left undecided (their claim is held by a command still being decided elsewhere): no
  // reply, nothing stored; the partner's retry decides them.
  undecided: IntakeCommand[];
}

type Via = 'phone' | 'email' | 'ref';
type Fate =
  | { kind: 'create' }
  | { kind: 'duplicate'; leadId: string; via: Via }
  | { kind: 'conflict'; leadId: string; via: Via; key: string; owner: string } // lead not known to exist yet
  | { kind: 'blocked'; by: Candidate; via: Via } // an earlier command of this chunk holds the key
  | { kind: 'retry' }
  | { kind: 'undecided' };

// Claims of the pass's keys as read at its start: in the periods before the current one (the newest
// of each), and in the current one.
interface ClaimsRead {
  prior: ReadonlyMap<string, DedupClaimDoc>;
  current: ReadonlyMap<string, DedupClaimDoc>;
}

interface Candidate {
  cmd: IntakeCommand;
  owner: string; // decision id: <partner>:<idempotency key>
  partner: PartnerDoc;
  leadId: string;
  reject: string | null;
  risk: LeadRisk;
  test: boolean; // a sandbox partner's: no dedup claims, no agent
  overCap: boolean; // rejected by a cap after its dedup claims were taken: they are given back
  windowMs: number;
  phoneKey: string;
  emailKey: string | null;
  refKey: string;
  heldClaims: string[];
  heldRef: string | null;
  // When its lead was first decided (an earlier run's, for a chunk decided again): the lead's
  // created_at and the day its data key is kept under, so a run on a later day keeps one copy.
  firstAt: Date;
  fate: Fate | null;
  passes: number;
}

// Decides a chunk of intake commands the way they would be decided one by one in offset order,
// with a handful of bulk commands instead of a dozen round trips each:
//   stored decisions (one look-up) -> phone claims -> external-id refs -> email claims (one insert
//   each, conflicts read back in one look-up) -> leads, waiting leads, decisions (one insert each).
// Phone claims come first because commands are keyed by phone hash: a phone claim is seen by no
// other partition, so giving it back when a later step is lost misleads nobody. An email claim is
// taken last and never given back: whoever finds one can rely on its lead being created. The
// unique _id of every document is what keeps a redelivered chunk, a zombie or a racing partition
// from deciding twice: a command finds its own claims (same owner) and carries on with their lead.
export class IntakeBatch {
  constructor(private readonly d: IntakeBatchDeps) {}

  async decide(cmds: readonly IntakeCommand[], now: Date): Promise<DecidedChunk> {
    const out: DecidedChunk = { replies: [], events: [], decisions: [], assignments: { assigned: 0, no_agent: 0 }, idle: [], undecided: [] };
    const decided = new Map<string, IntakeDecision | null>(); // decision id -> decision (null: undecided)
    const stored = await this.d.decisions.byIds(cmds.map((c) => decisionId(c.partner_id, c.idempotency_key)), now);

    const leaders: { cmd: IntakeCommand; id: string; partner: PartnerDoc }[] = [];
    const seen = new Set<string>();
    for (const cmd of cmds) {
      const id = decisionId(cmd.partner_id, cmd.idempotency_key);
      if (stored.has(id) || seen.has(id)) continue;
      seen.add(id);
      const partner = await this.d.partners.byId(cmd.partner_id);
      // Only possible if a partner vanished between authentication and decision; never retried.
      if (!partner) {
        decided.set(id, decision(cmd, 'rejected', null, 'partner_unknown'));
        continue;
      }
      leaders.push({ cmd, id, partner });
    }
    const assessed = await this.d.risk.assess(leaders.map((l) => l.cmd), now);
    const candidates: Candidate[] = [];
    for (const [i, { cmd, id, partner }] of leaders.entries()) candidates.push(await this.candidate(cmd, id, partner, assessed[i] as AssessedLead, now));
    const testOwners = new Set(candidates.filter((c) => c.test).map((c) => c.owner));
    // The first pass starts from the claims resume() read: one read of the current period, not two.
    let current: ReadonlyMap<string, DedupClaimDoc> | undefined = await this.resume(candidates, now);
    let open = candidates;
    while (open.length > 0) {
      open = await this.pass(open, now, current);
      current = undefined;
    }

    const created = await this.createLeads(candidates.filter((c) => c.fate?.kind === 'create'), now);
    for (const lead of created.values()) {
      if (lead.test) continue;
      if (lead.status === 'assigned') out.assignments.assigned++;
      else if (lead.status === 'new') out.assignments.no_agent++;
      const pending = pendingAssignment(lead);
      if (pending) out.idle.push(pending);
    }
    for (const c of candidates) decided.set(c.owner, this.outcome(c, created));
    for (const lead of created.values()) out.events.push(...eventsOf(lead));

    // The first command of a key decides; a repeat of it (same chunk, or decided before) is a replay.
    const made = new Map<string, IntakeDecisionDoc>(stored);
    for (const cmd of cmds) {
      const id = decisionId(cmd.partner_id, cmd.idempotency_key);
      const earlier = made.get(id);
      const own = decided.get(id);
      if (earlier) out.replies.push({ cmd, decision: replayOf(earlier, cmd.body_hash), test: earlier.test === true });
      else if (!own) out.undecided.push(cmd);
      else {
        const doc: IntakeDecisionDoc = { _id: id, partner_id: cmd.partner_id, ...own, replay: false, decided_at: now, ...testMark(testOwners.has(id)) };
        made.set(id, doc);
        out.decisions.push(doc);
        out.replies.push({ cmd, decision: own, test: testOwners.has(id) });
      }
    }
    return out;
  }

  // Gives back whatever a command given up on holds (claims and its ref, in either dedup scope), so a
  // command that failed half-way blocks no later lead; unless it got as far as creating its lead.
  async abandon(cmd: IntakeCommand, now: Date): Promise<void> {
    const owner = decisionId(cmd.partner_id, cmd.idempotency_key);
    const hashes = [`phone:${cmd.lead.phone_hash}`, ...(cmd.lead.email_hash ? [`email:${cmd.lead.email_hash}`] : [])];
    const claimIds = ['g', `p:${cmd.partner_id}`].flatMap((scope) => hashes.map((h) => `${scope}:${h}`));
    const refId = leadRefId(cmd.partner_id, cmd.lead.external_id);
    const held = [...(await this.d.claims.byIds(claimIds, now)).values(), ...(await this.d.refs.byIds([refId])).values()].filter((h) => h.owner === owner);
    if (held.length === 0 || (await this.d.leads.byIds(held.map((h) => h.lead_id))).size > 0) return;
    await this.d.claims.release(claimIds, owner, now);
    await this.d.refs.release([refId], owner);
  }

  // A redelivered chunk decides the same again (its claims name their command), so a decision
  // another instance stored first is the same decision: nothing to do about the conflict.
  async storeDecisions(docs: readonly IntakeDecisionDoc[], now: Date): Promise<void> {
    await this.d.decisions.insertNew(docs, now);
  }

  private async candidate(cmd: IntakeCommand, owner: string, partner: PartnerDoc, { ip, risk }: AssessedLead, now: Date): Promise<Candidate> {
    const scope = partner.dedup_scope === 'partner' ? `p:${partner._id}` : 'g';
    return {
      cmd,
      owner,
      partner,
      leadId: formatLeadId(await this.d.ids.allocate()),
      overCap: false,
      reject: rejectionReason({ ...cmd.lead, ip, risk }, this.d.rules, {
        blockedCountries: partner.blocked_countries ?? [],
        blockedSources: partner.blocked_sources ?? [],
        blockedIpRanges: partner.blocked_ip_ranges ?? [],
        riskThreshold: partner.risk_threshold,
      }),
      risk,
      test: partner.mode === 'test',
      windowMs: (partner.dedup_window_days ?? this.d.rules.dedupWindowDays) * DAY_MS,
      phoneKey: `${scope}:phone:${cmd.lead.phone_hash}`,
      emailKey: cmd.lead.email_hash ? `${scope}:email:${cmd.lead.email_hash}` : null,
      refKey: leadRefId(partner._id, cmd.lead.external_id),
      heldClaims: [],
      heldRef: null,
      firstAt: now,
      fate: null,
      passes: 0,
    };
  }

  // A chunk decided again (after a crash, or a publish that failed) meets what its first decision
  // left under each command's own name: claims and an external-id ref naming the lead it was
  // creating. A command keeps that lead id, so no claim ever names a lead that is never created.
  // One whose lead exists was decided: it keeps that decision, whatever the rules say now. One whose
  // lead does not exist yet is decided now, by the rules as they are: if they reject it, it gives
  // back the dedup claims it took when they did not (a rejected lead holds none). Returns the
  // current period's claims of the chunk's keys as they are now.
  private async resume(cands: Candidate[], now: Date): Promise<Map<string, DedupClaimDoc>> {
    const claimKeys = cands.filter((c) => !c.test).flatMap((c) => (c.emailKey ? [c.phoneKey, c.emailKey] : [c.phoneKey]));
    const [claims, refs] = await Promise.all([this.d.claims.byIds(claimKeys, now), this.d.refs.byIds(cands.map((c) => c.refKey))]);
    const resumed = cands.flatMap((c) => {
      const ref = refs.get(c.refKey);
      const own = [claims.get(c.phoneKey), c.emailKey ? claims.get(c.emailKey) : undefined, ref].find((h) => h?.owner === c.owner);
      if (!own) return [];
      c.leadId = own.lead_id;
      // The ref is taken before the key and the lead are written: its time is the first decision's.
      if (ref?.owner === c.owner) c.firstAt = ref.created_at;
      return [c];
    });
    if (resumed.length === 0) return claims;
    const leads = await this.d.leads.byIds(resumed.map((c) => c.leadId));
    for (const c of resumed) {
      const lead = leads.get(c.leadId);
      if (lead) c.reject = lead.history[0]?.to === 'rejected' ? lead.reason : null;
      else if (c.reject) {
        const ownClaims = [c.phoneKey, c.emailKey].filter((k): k is string => k !== null && claims.get(k)?.owner === c.owner);
        await this.d.claims.release(ownClaims, c.owner, now);
        for (const k of ownClaims) claims.delete(k);
      }
    }
    return claims;
  }

  // One round over the undecided candidates; returns those to go round again (an earlier command of
  // the chunk held their key and then gave it back, or a claim vanished while being read).
  private async pass(open: Candidate[], now: Date, read?: ReadonlyMap<string, DedupClaimDoc>): Promise<Candidate[]> {
    for (const c of open) {
      c.fate = null;
      c.passes++;
    }
    const alive = (c: Candidate) => c.fate === null;
    // Claims of every period, phone and email alike, in one round of look-ups for the pass; the
    // current period too, so that claims known to exist are not inserted (an insert that collides
    // costs the MongoDB-wire test server one transaction per document of the batch). A sandbox
    // partner's leads neither read nor take claims: they never meet live leads in dedup.
    const claimants = open.filter((c) => !c.reject && !c.test);
    const keys = claimants.flatMap((c) => (c.emailKey ? [c.phoneKey, c.emailKey] : [c.phoneKey]));
    const [prior, current] = await Promise.all([
      this.d.claims.prior(keys, now, Math.max(0, ...claimants.map((c) => c.windowMs))),
      read ?? this.d.claims.byIds(keys, now),
    ]);
    await this.claim(claimants, 'phone', { prior, current }, now);
    await this.reference(open.filter(alive), now);
    await this.claim(open.filter((c) => alive(c) && !c.reject && !c.test && c.emailKey !== null), 'email', { prior, current }, now);
    await this.settleInFlight(open.filter((c) => c.fate?.kind === 'conflict'), now);
    for (const c of open) if (alive(c)) c.fate = { kind: 'create' };
    await this.applyCaps(open.filter((c) => c.fate?.kind === 'create' && !c.reject), now);
    for (const c of open) if (c.fate?.kind === 'blocked') c.fate = afterBlocker(c.fate);
    for (const c of open) {
      if (c.fate?.kind === 'create' && !c.overCap) continue;
      await this.d.claims.release(c.heldClaims, c.owner, now);
      c.heldClaims = [];
      // A lead rejected over a cap is still created, under its external id (like any rejected lead).
      if (c.overCap) continue;
      if (c.heldRef) await this.d.refs.release([c.heldRef], c.owner);
      c.heldRef = null;
    }
    const again = open.filter((c) => c.fate?.kind === 'retry');
    for (const c of again) if (c.passes >= MAX_PASSES) c.fate = { kind: 'undecided' };
    return again.filter((c) => c.fate?.kind === 'retry');
  }

  // Leads that would be created accepted take their place under their partner's caps, in offset
  // order; one over a cap is rejected instead (and gives its dedup claims back, as rejected leads
  // hold none). Only leads that would be accepted count: duplicates and rejected leads never do.
  private async applyCaps(cands: Candidate[], now: Date): Promise<void> {
    const capped = cands.map((c) => ({ c, counters: capCounters(c.partner, c.cmd.lead.country_code, now) })).filter((x) => x.counters.length > 0);
    if (capped.length === 0) return;
    const verdicts = await this.d.caps.take(capped.map(({ c, counters }) => ({ owner: c.owner, counters })));
    capped.forEach(({ c }, i) => {
      const scope = verdicts[i];
      if (!scope) return;
      c.reject = capReason(scope);
      c.overCap = true;
    });
  }

  private async claim(cands: Candidate[], via: 'phone' | 'email', read: ClaimsRead, now: Date): Promise<void> {
    const { prior, current } = read;
    const keyOf = (c: Candidate) => (via === 'phone' ? c.phoneKey : c.emailKey) as string;
    // A live claim of an earlier period settles it before anything is inserted: such a claim is at
    // least one batch old, so its lead exists.
    const fresh = cands.filter((c) => {
      const ex = prior.get(keyOf(c));
      if (!ex || ex.claimed_at.getTime() < now.getTime() - c.windowMs) return true;
      if (ex.owner === c.owner) c.leadId = ex.lead_id; // decided before (redelivery): the same lead
      else c.fate = { kind: 'duplicate', leadId: ex.lead_id, via };
      return false;
    });
    const mine = claimsOnce(fresh, keyOf, via, (c) => ({ _id: keyOf(c), lead_id: c.leadId, owner: c.owner, claimed_at: now }));
    const taken = await this.d.claims.insertNew(mine.filter((m) => !current.has(m.doc._id)).map((m) => m.doc), now);
    const existing = taken.size > 0 ? await this.d.claims.byIds(taken, now) : new Map<string, DedupClaimDoc>();
    for (const { c, doc } of mine) {
      if (!taken.has(doc._id) && !current.has(doc._id)) {
        c.heldClaims.push(doc._id);
        continue;
      }
      // A claim read at the start of the pass may have been given back since: a conflict finds out
      // (settleInFlight reads it again before it decides anything), a duplicate by email cannot
      // meet one (email claims are taken last; one is given back only with its lead over a cap).
      const ex = current.get(doc._id) ?? existing.get(doc._id);
      if (!ex) c.fate = { kind: 'retry' };
      else if (ex.owner === c.owner) {
        c.leadId = ex.lead_id; // decided before (redelivery): the same lead
        c.heldClaims.push(doc._id);
      } else if (ex.claimed_at.getTime() < now.getTime() - c.windowMs) {
        if (await this.d.claims.takeOver(ex, doc, now)) c.heldClaims.push(doc._id);
        else c.fate = { kind: 'retry' };
      } else if (via === 'email') c.fate = { kind: 'duplicate', leadId: ex.lead_id, via };
      else c.fate = { kind: 'conflict', leadId: ex.lead_id, via, key: doc._id, owner: ex.owner };
    }
  }

  private async reference(cands: Candidate[], now: Date): Promise<void> {
    const mine = claimsOnce(cands, (c) => c.refKey, 'ref', (c) => ({ _id: c.refKey, lead_id: c.leadId, owner: c.owner, created_at: now, ...testMark(c.test) }));
    const taken = await this.d.refs.insertNew(mine.map((m) => m.doc));
    const existing = taken.size > 0 ? await this.d.refs.byIds(taken) : new Map();
    for (const { c, doc } of mine) {
      const ex = taken.has(doc._id) ? existing.get(doc._id) : doc;
      if (!ex) c.fate = { kind: 'retry' };
      else if (ex.owner === c.owner) {
        c.leadId = ex.lead_id;
        c.heldRef = doc._id;
      } else c.fate = { kind: 'conflict', leadId: ex.lead_id, via: 'ref', key: doc._id, owner: ex.owner };
    }
  }

  // A phone claim or ref held by another command: a duplicate once its lead exists. Until then it
  // may still be given back, so wait for the lead; if the claim goes away, try again; if neither
  // happens in time, leave the command undecided rather than guess.
  private async settleInFlight(cands: Candidate[], now: Date): Promise<void> {
    const deadline = Date.now() + IN_FLIGHT_WAIT_MS;
    let waiting = cands;
    while (waiting.length > 0) {
      const found = await this.d.leads.byIds(waiting.map((c) => conflictOf(c).leadId));
      for (const c of waiting) if (found.has(conflictOf(c).leadId)) c.fate = { kind: 'duplicate', leadId: conflictOf(c).leadId, via: conflictOf(c).via };
      waiting = waiting.filter((c) => c.fate?.kind === 'conflict');
      if (waiting.length === 0 || Date.now() >= deadline) break;
      await new Promise((r) => setTimeout(r, IN_FLIGHT_POLL_MS));
    }
    if (waiting.length === 0) return;
    const claims = await this.d.claims.byIds(waiting.filter((c) => conflictOf(c).via !== 'ref').map((c) => conflictOf(c).key), now);
    const refs = await this.d.refs.byIds(waiting.filter((c) => conflictOf(c).via === 'ref').map((c) => conflictOf(c).key));
    for (const c of waiting) {
      const { key, owner, via } = conflictOf(c);
      const still = via === 'ref' ? refs.get(key) : claims.get(key);
      c.fate = still?.owner === owner ? { kind: 'undecided' } : { kind: 'retry' };
    }
  }

  private async createLeads(creators: Candidate[], now: Date): Promise<Map<string, LeadDoc>> {
    const docs = creators.map((c) => newLeadDoc(c.cmd, c.leadId, { decidedAt: now, createdAt: c.firstAt }, c.reject
      ? { kind: 'rejected', reason: c.reject }
      : { kind: 'accepted', agent: c.test ? null : this.d.roster.take(c.cmd.lead, now) }, { risk: c.risk, test: c.test }));
    await this.d.keys.insertNew(creators.flatMap((c) => (c.cmd.lead.dek_enc === undefined ? []
      : [{ _id: c.leadId, dek_enc: c.cmd.lead.dek_enc, created_at: c.firstAt, ...testMark(c.test) }])));
    const existed = await this.d.leads.insertNew(docs);
    const stored = existed.size > 0 ? await this.d.leads.byIds(existed) : new Map<string, LeadDoc>();
    // An existing lead is this command's own (decided before), never another's under a reused id.
    for (const doc of docs) {
      const found = stored.get(doc._id);
      if (found && (found.partner_id !== doc.partner_id || found.idempotency_key !== doc.idempotency_key)) {
        throw new Error(`lead id ${doc._id} belongs to another command: not answering with its lead`);
      }
    }
    const leads = new Map(docs.map((doc) => [doc._id, stored.get(doc._id) ?? doc]));
    // A sandbox lead is never distributed: it does not wait for an agent either.
    await this.d.waiting.add(docs.filter((doc) => !existed.has(doc._id) && doc.status === 'new' && !doc.test));
    return leads;
  }

  private outcome(c: Candidate, created: Map<string, LeadDoc>): IntakeDecision | null {
    const fate = c.fate as Fate;
    if (fate.kind === 'create') {
      const lead = created.get(c.leadId) as LeadDoc;
      return lead.history[0]?.to === 'rejected'
        ? decision(c.cmd, 'rejected', lead._id, lead.reason)
        : decision(c.cmd, 'accepted', lead._id, null);
    }
    if (fate.kind === 'duplicate') {
      const n = leadSeq(fate.leadId);
      return decision(c.cmd, 'duplicate', fate.leadId, fate.via === 'ref' ? `external_id_taken:${n}` : `matched_lead:${n}`);
    }
    return null;
  }

}

// The first candidate of the chunk for each key gets the document; later ones wait on its fate.
function claimsOnce<D extends { _id: string }>(
  cands: Candidate[], keyOf: (c: Candidate) => string, via: Via, doc: (c: Candidate) => D,
): { c: Candidate; doc: D }[] {
  const first = new Map<string, Candidate>();
  const mine: { c: Candidate; doc: D }[] = [];
  for (const c of cands) {
    const prior = first.get(keyOf(c));
    if (prior) {
      c.fate = { kind: 'blocked', by: prior, via };
      continue;
    }
    first.set(keyOf(c), c);
    mine.push({ c, doc: doc(c) });
  }
  return mine;
}

// A command that shares a key with an earlier one of its chunk meets what that one met on it: its
// new lead, or the same existing lead. If the earlier one lost on another key, or was over a cap
// (its lead keeps only its external id), it gave this key back: go round again.
function afterBlocker({ by, via }: Extract<Fate, { kind: 'blocked' }>): Fate {
  if (by.fate?.kind === 'create' && (!by.overCap || via === 'ref')) return { kind: 'duplicate', leadId: by.leadId, via };
  if (by.fate?.kind === 'duplicate' && by.fate.via === via) return by.fate;
  return { kind: 'retry' };
}

function conflictOf(c: Candidate): Extract<Fate, { kind: 'conflict' }> {
  return c.fate as Extract<Fate, { kind: 'conflict' }>;
}

function decision(cmd: IntakeCommand, outcome: IntakeDecision['outcome'], leadId: string | null, reason: string | null): IntakeDecision {
  return { outcome, lead_id: leadId, reason, body_hash: cmd.body_hash, replay: false };
}

// A stored decision answered again: as a replay for the same body, as a mismatch for another.
export function replayOf(stored: IntakeDecisionDoc, bodyHash: string): IntakeDecision {
  if (stored.body_hash !== bodyHash) return { outcome: 'idempotency_mismatch', lead_id: null, reason: null, body_hash: bodyHash, replay: false };
  return { outcome: stored.outcome, lead_id: stored.lead_id, reason: stored.reason, body_hash: stored.body_hash, replay: true };
}
