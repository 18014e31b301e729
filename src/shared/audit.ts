import type { Collection } from 'mongodb';
import { randomId } from './ids';
import type { AuditDoc } from './mongo/documents';

export type AuditAction =
  | 'partner.create' | 'partner.update' | 'partner.rotate_key' | 'partner.test_callback' | 'partner.replay'
  | 'endpoint.paused' | 'endpoint.resume'
  | 'delivery.retry' | 'delivery.retry_dead' | 'agent.create' | 'agent.update' | 'lead.erase_personal_data';

export interface AuditEntry {
  partnerId?: string | null;
  target?: string | null;
  // Names of changed fields and outcomes only: callers never pass a secret or a setting's value.
  details?: Record<string, unknown>;
}

// Who did what, when, to which partner: one document per action (a manager's, or the dispatcher's
// own when it pauses an endpoint).
export async function writeAudit(audit: Collection<AuditDoc>, actor: string, action: AuditAction, entry: AuditEntry = {}): Promise<void> {
  await audit.insertOne({
    _id: randomId('au'),
    at: new Date(),
    actor,
    action,
    partner_id: entry.partnerId ?? null,
    target: entry.target ?? null,
    details: entry.details ?? {},
  });
}
