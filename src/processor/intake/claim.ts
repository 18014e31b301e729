import { testMark, type DedupClaimDoc } from '../../shared/mongo/documents';
import type { LeadRefStore } from '../../shared/store/lead-refs';
import type { LeadStore } from '../../shared/store/leads';
import type { CapGate } from '../cap-gate';
import { capCounters, capReason } from '../caps';
import type { DedupClaims } from '../dedup-claims';
import type { Candidate, ClaimsRead, Fate, Via } from './candidates';
import { afterBlocker } from './decide';

// A claim whose lead does not exist yet belongs to a command another partition is deciding right
// now; its lead appears within a batch's time, or the claim is given back. Wait this long at most.
const IN_FLIGHT_WAIT_MS = 1500;
const IN_FLIGHT_POLL_MS = 100;
const MAX_PASSES = 4;

export interface ClaimDeps {
  claims: DedupClaims;
  refs: LeadRefStore;
  leads: LeadStore;
  caps: Pick<CapGate, 'take'>;
}

// The claim step of an intake chunk: each command takes its phone claim, its external-id ref and
// its email claim, in bulk, and learns its fate (a new lead, a duplicate, or undecided). Phone
// claims come first because commands are keyed by their phone's bucket: a phone claim is seen by no
// other partition, so giving it back when a later step is lost misleads nobody. An email claim is taken
// last and never given back: whoever finds one can rely on its lead being created.
export class ClaimStep {
  constructor(private readonly d: ClaimDeps) {}

  // Every candidate's fate, in passes until none needs another.
  async run(candidates: Candidate[], now: Date): Promise<void> {
    // The first pass starts from the claims resume() read: one read of the current period, not two.
    let current: ReadonlyMap<string, DedupClaimDoc> | undefined = await this.resume(candidates, now);
    let open = candidates.filter((c) => {
      if (c.erased) c.fate = { kind: 'create' }; // its lead is there: nothing to claim
      return !c.erased;
    });
    while (open.length > 0) {
      open = await this.pass(open, now, current);
      current = undefined;
    }
  }

  // A chunk decided again (after a crash, or a publish that failed) meets what its first decision
  // left under each command's own name: claims and an external-id ref naming the lead it was
  // creating. A command keeps that lead id, so no claim ever names a lead that is never created.
  // One whose lead exists was decided: it keeps that decision, whatever the rules say now. One whose
  // lead does not exist yet is decided now, by the rules as they are: if they reject it, it gives
  // back the dedup claims it took when they did not (a rejected lead holds none). Returns the
  // current period's claims of the chunk's keys as they are now.
  private async resume(cands: Candidate[], now: Date): Promise<Map<string, DedupClaimDoc>> {
    const claimKeys = cands
      .filter((c) => !c.test)
      .flatMap((c) => (c.emailKey ? [c.phoneKey, c.emailKey] : [c.phoneKey]));
    const [claims, refs] = await Promise.all([
      this.d.claims.byIds(claimKeys, now),
      this.d.refs.byIds(cands.map((c) => c.refKey)),
    ]);
    const resumed = cands.flatMap((c) => {
      const ref = refs.get(c.refKey);
      const own = [claims.get(c.phoneKey), c.emailKey ? claims.get(c.emailKey) : undefined, ref].find(
        (h) => h?.owner === c.owner,
      );
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
      if (lead) {
        c.reject = lead.history[0]?.to === 'rejected' ? lead.reason : null;
        c.erased = lead.personal_erased_at !== undefined && lead.personal_erased_at !== null;
      } else if (c.reject) {
        const ownClaims = [c.phoneKey, c.emailKey].filter(
          (k): k is string => k !== null && claims.get(k)?.owner === c.owner,
        );
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
    await this.claim(
      open.filter((c) => alive(c) && !c.reject && !c.test && c.emailKey !== null),
      'email',
      { prior, current },
      now,
    );
    await this.settleInFlight(
      open.filter((c) => c.fate?.kind === 'conflict'),
      now,
    );
    for (const c of open) if (alive(c)) c.fate = { kind: 'create' };
    await this.applyCaps(
      open.filter((c) => c.fate?.kind === 'create' && !c.reject),
      now,
    );
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
    const capped = cands
      .map((c) => ({ c, counters: capCounters(c.partner, c.cmd.lead.country_code, now) }))
      .filter((x) => x.counters.length > 0);
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
      if (ex.owner === c.owner)
        c.leadId = ex.lead_id; // decided before (redelivery): the same lead
      else c.fate = { kind: 'duplicate', leadId: ex.lead_id, via };
      return false;
    });
    const mine = claimsOnce(fresh, keyOf, via, (c) => ({
      _id: keyOf(c),
      lead_id: c.leadId,
      owner: c.owner,
      claimed_at: now,
    }));
    const taken = await this.d.claims.insertNew(
      mine.filter((m) => !current.has(m.doc._id)).map((m) => m.doc),
      now,
    );
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
    const mine = claimsOnce(
      cands,
      (c) => c.refKey,
      'ref',
      (c) => ({ _id: c.refKey, lead_id: c.leadId, owner: c.owner, created_at: now, ...testMark(c.test) }),
    );
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
      for (const c of waiting)
        if (found.has(conflictOf(c).leadId))
          c.fate = { kind: 'duplicate', leadId: conflictOf(c).leadId, via: conflictOf(c).via };
      waiting = waiting.filter((c) => c.fate?.kind === 'conflict');
      if (waiting.length === 0 || Date.now() >= deadline) break;
      await new Promise((r) => setTimeout(r, IN_FLIGHT_POLL_MS));
    }
    if (waiting.length === 0) return;
    const claims = await this.d.claims.byIds(
      waiting.filter((c) => conflictOf(c).via !== 'ref').map((c) => conflictOf(c).key),
      now,
    );
    const refs = await this.d.refs.byIds(
      waiting.filter((c) => conflictOf(c).via === 'ref').map((c) => conflictOf(c).key),
    );
    for (const c of waiting) {
      const { key, owner, via } = conflictOf(c);
      const still = via === 'ref' ? refs.get(key) : claims.get(key);
      c.fate = still?.owner === owner ? { kind: 'undecided' } : { kind: 'retry' };
    }
  }
}

// The first candidate of the chunk for each key gets the document; later ones wait on its fate.
function claimsOnce<D extends { _id: string }>(
  cands: Candidate[],
  keyOf: (c: Candidate) => string,
  via: Via,
  doc: (c: Candidate) => D,
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

function conflictOf(c: Candidate): Extract<Fate, { kind: 'conflict' }> {
  return c.fate as Extract<Fate, { kind: 'conflict' }>;
}
