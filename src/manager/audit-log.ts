import type { Filter } from 'mongodb';
import { randomId } from '../shared/ids';
import type { AuditDoc } from '../shared/mongo/documents';
import type { Runtime } from '../shared/runtime';
import { findPage, type Page, type PageRequest } from './pagination';

export type AuditAction =
  | 'partner.create' | 'partner.update' | 'partner.rotate_key' | 'partner.test_callback'
  | 'delivery.retry' | 'delivery.retry_dead' | 'agent.create' | 'agent.update' | 'lead.erase_personal_data';

export interface AuditEntry {
  partnerId?: string | null;
  target?: string | null;
  // Names of changed fields and outcomes only: callers never pass a secret or a setting's value.
  details?: Record<string, unknown>;
}

// Who did what, when, to which partner: one document per manager action.
export async function recordAudit(rt: Runtime, actor: string, action: AuditAction, entry: AuditEntry = {}): Promise<void> {
  await rt.mongo.collections.audit.insertOne({
    _id: randomId('au'),
    at: new Date(),
    actor,
    action,
    partner_id: entry.partnerId ?? null,
    target: entry.target ?? null,
    details: entry.details ?? {},
  });
}

export interface AuditView {
  id: string;
  at: Date;
  actor: string;
  action: string;
  affiliate_id: string | null;
  target: string | null;
  details: Record<string, unknown>;
}

export function auditView(doc: AuditDoc): AuditView {
  return { id: doc._id, at: doc.at, actor: doc.actor, action: doc.action, affiliate_id: doc.partner_id, target: doc.target, details: doc.details };
}

export async function listAudit(rt: Runtime, filter: { affiliate_id?: string; action?: string }, page: PageRequest): Promise<Page<AuditView>> {
  const query: Filter<AuditDoc> = {};
  if (filter.affiliate_id) query.partner_id = filter.affiliate_id;
  if (filter.action) query.action = filter.action;
  return findPage(rt.mongo.collections.audit, query, page, auditView, 'at');
}
