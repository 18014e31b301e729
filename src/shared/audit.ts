import type { Collection } from 'mongodb';
import { randomId } from './ids';
import type { AuditDoc } from './mongo/documents';
import { ListIndex, listPrefix, type ListEntry, type ListEntryDoc } from './store/list-index';
import { systemClock, type Clock } from './clock';
import type { AuditAction } from './audit-actions';

export type { AuditAction } from './audit-actions';

// Who did something, as the audit log names them: an account or a service account (id and display
// name), how they signed in and from which address; or the service itself ('system').
export interface AuditActor {
  id: string;
  name: string;
  method: 'password' | 'passkey' | 'sso' | 'token' | 'break_glass' | 'system';
  address: string | null;
}

export function systemActor(id: string): AuditActor {
  return { id, name: id, method: 'system', address: null };
}

export interface AuditEntry {
  partnerId?: string | null;
  target?: string | null;
  // Names of changed fields and outcomes only: callers never pass a secret or a setting's value.
  details?: Record<string, unknown>;
}

// What writes an entry: the manager's audit log, as the code that only records sees it.
export interface AuditRecorder {
  record(actor: AuditActor, action: AuditAction, entry?: AuditEntry): Promise<void>;
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
  return partners.flatMap((partnerId) =>
    [undefined, doc.action].map((action) => ({
      prefix: auditListPrefix({ partnerId, action }),
      at: doc.at,
      ref: doc._id,
    })),
  );
}

// Who did what, when, to which partner: one document per action (a person's, a machine's, or the
// dispatcher's own when it pauses an endpoint), listed before it is written. Nothing edits or
// deletes an entry.
export async function writeAudit(
  c: AuditCollections,
  actor: AuditActor,
  action: AuditAction,
  entry: AuditEntry = {},
  clock: Clock = systemClock,
): Promise<void> {
  const doc: AuditDoc = {
    _id: randomId('au'),
    at: clock.now(),
    actor: actor.id,
    actor_name: actor.name,
    auth_method: actor.method,
    client_address: actor.address,
    action,
    partner_id: entry.partnerId ?? null,
    target: entry.target ?? null,
    details: entry.details ?? {},
  };
  await new ListIndex(c.auditList).put(auditListEntries(doc));
  await c.audit.insertOne(doc);
}
