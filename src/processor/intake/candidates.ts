import type { DedupClaimDoc, LeadRisk, PartnerDoc } from '../../shared/mongo/documents';
import type { IntakeCommand } from '../../shared/schemas';
import type { DedupHashes } from '../lead-opener';

export type Via = 'phone' | 'email' | 'ref';

// What became of a command in the current pass.
export type Fate =
  | { kind: 'create' }
  | { kind: 'duplicate'; leadId: string; via: Via }
  | { kind: 'conflict'; leadId: string; via: Via; key: string; owner: string } // lead not known to exist yet
  | { kind: 'blocked'; by: Candidate; via: Via } // an earlier command of this chunk holds the key
  | { kind: 'retry' }
  | { kind: 'undecided' };

// Claims of the pass's keys as read at its start: in the periods before the current one (the newest
// of each), and in the current one.
export interface ClaimsRead {
  prior: ReadonlyMap<string, DedupClaimDoc>;
  current: ReadonlyMap<string, DedupClaimDoc>;
}

// One command of the chunk while it is decided: the claim steps fill in its fate.
export interface Candidate {
  cmd: IntakeCommand;
  owner: string; // decision id: <partner>:<idempotency key>
  partner: PartnerDoc;
  leadId: string;
  reject: string | null;
  risk: LeadRisk;
  test: boolean; // a sandbox partner's: no dedup claims, no agent
  overCap: boolean; // rejected by a cap after its dedup claims were taken: they are given back
  // Its lead exists (decided before) and its personal data was erased: answered as decided, taking
  // no dedup claim and storing no data key, so the erased lead never matches dedup again.
  erased: boolean;
  windowMs: number;
  hashes: DedupHashes; // derived from what its data key opens: the command carries none
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
