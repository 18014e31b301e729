import { leadId as formatLeadId } from '../../shared/ids';
import type { IntakeDecisionDoc, PartnerDoc } from '../../shared/mongo/documents';
import type { IntakeCommand, IntakeDecision, LeadAssignment, LeadEvent } from '../../shared/schemas';
import { decisionId } from '../../shared/store/intake-decisions';
import type { IntakeKeyStore } from '../../shared/store/intake-keys';
import { announce, entriesFrom } from '../announcements';
import type { IsTerminal } from '../assignment-feed';
import type { RuleSet } from '../business-rules';
import type { Assignment } from '../idle-redistribution';
import type { DedupHashes, LeadOpener, OpenedLead } from '../lead-opener';
import type { AssessedLead } from '../risk-assessment';
import type { Candidate } from './candidates';
import { ClaimStep, type ClaimDeps } from './claim';
import { answersOf, assignmentsOf, decision, newCandidate, outcomeOf } from './decide';
import { PersistStep, type PersistDeps } from './persist';

export interface IntakeBatchDeps extends ClaimDeps, PersistDeps {
  partners: { byId(id: string): Promise<PartnerDoc | null> };
  ids: { allocate(): Promise<number> };
  rules: RuleSet & { dedupWindowDays: number };
  // Opens each lead, once, for the rules and the dedup hashes (lead-opener.ts).
  opener: Pick<LeadOpener, 'open' | 'hashes'>;
  // Scores the opened leads for the IP rule and the fraud signals.
  risk: { assess(opened: readonly OpenedLead[], now: Date): Promise<AssessedLead[]> };
  // The leads' data keys, which the commands only refer to (intake-keys.ts).
  intakeKeys: Pick<IntakeKeyStore, 'byRefs'>;
  // The status catalogue's terminal statuses: a lead read back from an earlier decision announces again
  // everything it did since, its departure from its agent too.
  isTerminal: IsTerminal;
}

type Leader = { cmd: IntakeCommand; id: string; partner: PartnerDoc };

export interface DecidedChunk {
  replies: { cmd: IntakeCommand; decision: IntakeDecision; test: boolean }[];
  events: LeadEvent[];
  // The assignment feed's messages of the same leads (crm.lead-assignments), published with the events.
  feed: LeadAssignment[];
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

// Decides a chunk of intake commands the way they would be decided one by one in offset order,
// with a handful of bulk commands instead of a dozen round trips each:
//   stored decisions (one look-up) -> claim (claim.ts: phone claims, external-id refs, email claims,
//   one insert each, conflicts read back in one look-up) -> decide (decide.ts, pure) -> persist
//   (persist.ts: leads, waiting leads, then decisions, one insert each).
// The unique _id of every document is what keeps a redelivered chunk, a zombie or a racing
// partition from deciding twice: a command finds its own claims (same owner) and carries on with
// their lead.
export class IntakeBatch {
  private readonly claims: ClaimStep;
  private readonly persist: PersistStep;

  constructor(private readonly d: IntakeBatchDeps) {
    this.claims = new ClaimStep(d);
    this.persist = new PersistStep(d);
  }

  async decide(cmds: readonly IntakeCommand[], now: Date): Promise<DecidedChunk> {
    const decided = new Map<string, IntakeDecision | null>(); // decision id -> decision (null: undecided)
    const stored = await this.d.decisions.byIds(
      cmds.map((c) => decisionId(c.partner_id, c.idempotency_key)),
      now,
    );

    const found: Leader[] = [];
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
      found.push({ cmd, id, partner });
    }
    const keyed = await this.withDataKeys(found.map((l) => l.cmd));
    const leaders = found.flatMap((l, i) => {
      const cmd = keyed[i];
      if (!cmd) decided.set(l.id, null);
      return cmd ? [{ ...l, cmd }] : [];
    });
    const opened = leaders.map((l) => this.d.opener.open(l.cmd));
    const assessed = await this.d.risk.assess(opened, now);
    const candidates: Candidate[] = [];
    for (const [i, { cmd, id, partner }] of leaders.entries()) {
      const leadId = formatLeadId(await this.d.ids.allocate());
      const facts = { ...(assessed[i] as AssessedLead), hashes: (opened[i] as OpenedLead).hashes };
      candidates.push(newCandidate(cmd, id, partner, facts, leadId, this.d.rules, now));
    }
    const testOwners = new Set(candidates.filter((c) => c.test).map((c) => c.owner));
    await this.claims.run(candidates, now);

    const created = await this.persist.createLeads(
      candidates.filter((c) => c.fate?.kind === 'create'),
      now,
    );
    for (const c of candidates) decided.set(c.owner, outcomeOf(c, created));
    const { replies, decisions, undecided } = answersOf(cmds, stored, decided, testOwners, now);
    const announced = [...created.values()].map((lead) => announce(lead, entriesFrom(lead), this.d.isTerminal));
    const events = announced.flatMap((a) => a.events);
    const feed = announced.flatMap((a) => a.feed);
    return { replies, events, feed, decisions, ...assignmentsOf(created), undecided };
  }

  // Each command with the data key it refers to, read in one look-up; null for one whose key is gone
  // (INTAKE_KEY_HOURS passed while it waited): it cannot be opened, so it is left undecided and the
  // partner's retry decides it. A command from before key_ref carries its key, or none.
  private async withDataKeys(cmds: readonly IntakeCommand[]): Promise<(IntakeCommand | null)[]> {
    const refs = cmds.flatMap((c) => (c.lead.key_ref === undefined ? [] : [c.lead.key_ref]));
    const keys = refs.length > 0 ? await this.d.intakeKeys.byRefs(refs) : new Map<string, string>();
    return cmds.map((cmd) => {
      const ref = cmd.lead.key_ref;
      if (ref === undefined) return cmd;
      const dek = keys.get(ref);
      return dek === undefined ? null : { ...cmd, lead: { ...cmd.lead, dek_enc: dek } };
    });
  }

  // Its claims are found by the hashes its lead opens to. One that does not open (its key gone, a
  // damaged ciphertext) failed before taking any: nothing to give back.
  async abandon(cmd: IntakeCommand, now: Date): Promise<void> {
    const [keyed] = await this.withDataKeys([cmd]);
    const hashes = keyed ? this.hashesOf(keyed) : null;
    if (hashes) await this.persist.abandon(cmd, hashes, now);
  }

  private hashesOf(cmd: IntakeCommand): DedupHashes | null {
    try {
      return this.d.opener.hashes(cmd);
    } catch {
      return null;
    }
  }

  storeDecisions(docs: readonly IntakeDecisionDoc[], now: Date): Promise<void> {
    return this.persist.storeDecisions(docs, now);
  }
}
