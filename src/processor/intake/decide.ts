import { leadSeq } from '../../shared/ids';
import { testMark, type IntakeDecisionDoc, type LeadDoc, type PartnerDoc } from '../../shared/mongo/documents';
import type { IntakeCommand, IntakeDecision } from '../../shared/schemas';
import { decisionId } from '../../shared/store/intake-decisions';
import { leadRefId } from '../../shared/store/lead-refs';
import { rejectionReason, type RuleSet } from '../business-rules';
import { pendingAssignment, type Assignment } from '../idle-redistribution';
import type { DedupHashes } from '../lead-opener';
import type { AssessedLead } from '../risk-assessment';
import type { Candidate, Fate } from './candidates';

// The pure part of an intake chunk's decision: the rules' verdict on each command, what a command's
// fate answers, and the replies and decisions of the chunk. No I/O; the time is passed in.

const DAY_MS = 86_400_000;

// A command as the claim steps take it: the rules' verdict now, its dedup keys in its partner's scope.
export function newCandidate(
  cmd: IntakeCommand,
  owner: string,
  partner: PartnerDoc,
  { ip, risk, hashes }: AssessedLead & { hashes: DedupHashes },
  leadId: string,
  rules: RuleSet & { dedupWindowDays: number },
  now: Date,
): Candidate {
  const scope = partner.dedup_scope === 'partner' ? `p:${partner._id}` : 'g';
  return {
    cmd,
    owner,
    partner,
    leadId,
    overCap: false,
    erased: false,
    reject: rejectionReason({ ...cmd.lead, ip, risk }, rules, {
      blockedCountries: partner.blocked_countries ?? [],
      blockedSources: partner.blocked_sources ?? [],
      blockedIpRanges: partner.blocked_ip_ranges ?? [],
      riskThreshold: partner.risk_threshold,
    }),
    risk,
    test: partner.mode === 'test',
    windowMs: (partner.dedup_window_days ?? rules.dedupWindowDays) * DAY_MS,
    hashes,
    phoneKey: `${scope}:phone:${hashes.phone_hash}`,
    emailKey: hashes.email_hash ? `${scope}:email:${hashes.email_hash}` : null,
    refKey: leadRefId(partner._id, cmd.lead.external_id),
    heldClaims: [],
    heldRef: null,
    firstAt: now,
    fate: null,
    passes: 0,
  };
}

// A command that shares a key with an earlier one of its chunk meets what that one met on it: its
// new lead, or the same existing lead. If the earlier one lost on another key, or was over a cap
// (its lead keeps only its external id), it gave this key back: go round again.
export function afterBlocker({ by, via }: Extract<Fate, { kind: 'blocked' }>): Fate {
  if (by.fate?.kind === 'create' && (!by.overCap || via === 'ref'))
    return { kind: 'duplicate', leadId: by.leadId, via };
  if (by.fate?.kind === 'duplicate' && by.fate.via === via) return by.fate;
  return { kind: 'retry' };
}

// What a decided command answers: its new lead (accepted or rejected), or the lead it duplicates.
export function outcomeOf(c: Candidate, created: ReadonlyMap<string, LeadDoc>): IntakeDecision | null {
  const fate = c.fate as Fate;
  if (fate.kind === 'create') {
    const lead = created.get(c.leadId) as LeadDoc;
    return lead.history[0]?.to === 'rejected'
      ? decision(c.cmd, 'rejected', lead._id, lead.reason)
      : decision(c.cmd, 'accepted', lead._id, null);
  }
  if (fate.kind === 'duplicate') {
    const n = leadSeq(fate.leadId);
    return decision(
      c.cmd,
      'duplicate',
      fate.leadId,
      fate.via === 'ref' ? `external_id_taken:${n}` : `matched_lead:${n}`,
    );
  }
  return null;
}

export function decision(
  cmd: IntakeCommand,
  outcome: IntakeDecision['outcome'],
  leadId: string | null,
  reason: string | null,
): IntakeDecision {
  return { outcome, lead_id: leadId, reason, body_hash: cmd.body_hash, replay: false };
}

// A stored decision answered again: as a replay for the same body, as a mismatch for another.
export function replayOf(stored: IntakeDecisionDoc, bodyHash: string): IntakeDecision {
  if (stored.body_hash !== bodyHash)
    return { outcome: 'idempotency_mismatch', lead_id: null, reason: null, body_hash: bodyHash, replay: false };
  return {
    outcome: stored.outcome,
    lead_id: stored.lead_id,
    reason: stored.reason,
    body_hash: stored.body_hash,
    replay: true,
  };
}

export interface ChunkAnswers {
  replies: { cmd: IntakeCommand; decision: IntakeDecision; test: boolean }[];
  decisions: IntakeDecisionDoc[];
  undecided: IntakeCommand[];
}

// The first command of a key decides; a repeat of it (same chunk, or decided before) is a replay.
export function answersOf(
  cmds: readonly IntakeCommand[],
  stored: ReadonlyMap<string, IntakeDecisionDoc>,
  decided: ReadonlyMap<string, IntakeDecision | null>,
  testOwners: ReadonlySet<string>,
  now: Date,
): ChunkAnswers {
  const out: ChunkAnswers = { replies: [], decisions: [], undecided: [] };
  const made = new Map<string, IntakeDecisionDoc>(stored);
  for (const cmd of cmds) {
    const id = decisionId(cmd.partner_id, cmd.idempotency_key);
    const earlier = made.get(id);
    const own = decided.get(id);
    if (earlier) out.replies.push({ cmd, decision: replayOf(earlier, cmd.body_hash), test: earlier.test === true });
    else if (!own) out.undecided.push(cmd);
    else {
      const doc: IntakeDecisionDoc = {
        _id: id,
        partner_id: cmd.partner_id,
        ...own,
        replay: false,
        decided_at: now,
        ...testMark(testOwners.has(id)),
      };
      made.set(id, doc);
      out.decisions.push(doc);
      out.replies.push({ cmd, decision: own, test: testOwners.has(id) });
    }
  }
  return out;
}

// Live leads of the chunk handed to an agent at once or left waiting for one, and the assignments
// to check once the idle time is up.
export function assignmentsOf(created: ReadonlyMap<string, LeadDoc>): {
  assignments: { assigned: number; no_agent: number };
  idle: Assignment[];
} {
  const assignments = { assigned: 0, no_agent: 0 };
  const idle: Assignment[] = [];
  for (const lead of created.values()) {
    if (lead.test) continue;
    if (lead.status === 'assigned') assignments.assigned++;
    else if (lead.status === 'new') assignments.no_agent++;
    const pending = pendingAssignment(lead);
    if (pending) idle.push(pending);
  }
  return { assignments, idle };
}
