import {
  LEAD_DETAIL_FIELDS,
  type AgentDoc,
  type LeadDoc,
  type LeadRisk,
  type StatusChange,
} from '../shared/mongo/documents';
import { leadSeq } from '../shared/ids';
import type { IntakeCommand } from '../shared/schemas';
import type { DedupHashes } from './lead-opener';

export type IntakeVerdict =
  { kind: 'accepted'; agent: Pick<AgentDoc, '_id'> | null } | { kind: 'rejected'; reason: string };

// The lead an intake command creates, complete with its first history entries: accepted (and at
// once assigned when an agent could take it) or rejected, with its fraud signals, the dedup hashes
// derived from the opened lead (the command carries none) and, for a sandbox partner, the test
// mark. One insert holds it all; the data key goes to lead_keys, not here. Its created_at is when
// it was first decided (a chunk decided again on a later day keeps it).
export function newLeadDoc(
  cmd: IntakeCommand,
  id: string,
  at: { decidedAt: Date; createdAt: Date },
  verdict: IntakeVerdict,
  marks: { risk: LeadRisk; test: boolean; hashes: DedupHashes },
): LeadDoc {
  const { lead } = cmd;
  const now = at.decidedAt;
  const history: StatusChange[] =
    verdict.kind === 'rejected'
      ? [
          {
            from: null,
            to: 'rejected',
            at: now,
            why: verdict.reason,
            source: 'intake',
            event: 'lead.rejected',
            is_depositor: false,
            reason: verdict.reason,
          },
        ]
      : [
          {
            from: null,
            to: 'new',
            at: now,
            why: 'accepted at intake',
            source: 'intake',
            event: 'lead.accepted',
            is_depositor: false,
          },
        ];
  const agent = verdict.kind === 'accepted' ? verdict.agent : null;
  if (agent) history.push(assignment('new', agent._id, now, false));
  const doc: LeadDoc = {
    _id: id,
    seq: leadSeq(id),
    partner_id: cmd.partner_id,
    external_id: lead.external_id,
    idempotency_key: cmd.idempotency_key,
    status: (history[history.length - 1] as StatusChange).to,
    is_depositor: false,
    client_id: null,
    agent_id: agent?._id ?? null,
    reason: verdict.kind === 'rejected' ? verdict.reason : null,
    history,
    phone_enc: lead.phone_enc,
    phone_hash: marks.hashes.phone_hash,
    email_enc: lead.email_enc ?? null,
    email_hash: marks.hashes.email_hash,
    personal_enc: lead.personal_enc,
    risk: marks.risk,
    ...(marks.test ? { test: true as const } : {}),
    created_at: at.createdAt,
    updated_at: now,
  };
  for (const f of LEAD_DETAIL_FIELDS) if (lead[f] !== undefined) Object.assign(doc, { [f]: lead[f] });
  return doc;
}

// The history entry of handing a lead to an agent: a status change the partner hears of.
export function assignment(from: string, agentId: string, now: Date, isDepositor: boolean): StatusChange {
  return {
    from,
    to: 'assigned',
    at: now,
    why: `assigned to ${agentId}`,
    source: 'distribution',
    event: 'lead.status_changed',
    is_depositor: isDepositor,
    agent_id: agentId,
  };
}
