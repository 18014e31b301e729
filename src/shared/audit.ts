import type { Collection } from 'mongodb';
import { randomId } from './ids';
import type { AuditDoc } from './mongo/documents';
import { ListIndex, listPrefix, type ListEntry, type ListEntryDoc } from './store/list-index';
import { systemClock, type Clock } from './clock';

export type AuditAction =
  | 'partner.create' | 'partner.update' | 'partner.rotate_key' | 'partner.test_callback' | 'partner.test_postback' | 'partner.replay'
  | 'endpoint.paused' | 'endpoint.resume'
  | 'delivery.retry' | 'delivery.retry_dead' | 'agent.create' | 'agent.update' | 'lead.erase_personal_data';

export interface AuditEntry {
  partnerId?: string | null;
  target?: string | null;
  // Names of changed fields and outcomes only: callers never pass a secret or a setting's value.
  details?: Record<string, unknown>;
}

export interface AuditCollections {
  audit: Collection<AuditDoc>;
  auditList: Collection<ListEntryDoc>;
}

// The audit log's list read model (audit_list), newest first by partner and by action:
//   a|...  ap|<partner>|...  aa|<action>|...  apa|<partner>|<action>|...
export function auditListPrefix(f: { partnerId?: string; action?: string }): string {
  if (f.partnerId !== undefined && f.action !== undefined) return listPrefix('apa', f.partnerId, f.action);
  if (f.partnerId !== undefined) return listPrefix('ap', f.partnerId);
  return f.action !== undefined ? listPrefix('aa', f.action) : listPrefix('a');
}

export function auditListEntries(doc: AuditDoc): ListEntry[] {
  const partners = doc.partner_id === null ? [undefined] : [undefined, doc.partner_id];
  return partners.flatMap((partnerId) => [undefined, doc.action].map((action) => ({ prefix: auditListPrefix({ partnerId, action }), at: doc.at, ref: doc._id })));
}

// Who did what, when, to which partner: one document per action (a manager's, or the dispatcher's
// own when it pauses an endpoint), listed before it is written.
export async function writeAudit(
  c: AuditCollections, actor: string, action: AuditAction, entry: AuditEntry = {}, clock: Clock = systemClock,
): Promise<void> {
  const doc: AuditDoc = {
    _id: randomId('au'),
    at: clock.now(),
    actor,
    action,
    partner_id: entry.partnerId ?? null,
    target: entry.target ?? null,
    details: entry.details ?? {},
  };
  await new ListIndex(c.auditList).put(auditListEntries(doc));
  await c.audit.insertOne(doc);
}
