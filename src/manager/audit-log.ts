import type { Filter } from 'mongodb';
import { writeAudit, type AuditAction, type AuditEntry } from '../shared/audit';
import type { AuditDoc } from '../shared/mongo/documents';
import type { Runtime } from '../shared/runtime';
import { findPage, type Page, type PageRequest } from './pagination';

export type { AuditAction } from '../shared/audit';

// Who did what, when, to which partner: one document per manager action.
export function recordAudit(rt: Runtime, actor: string, action: AuditAction, entry: AuditEntry = {}): Promise<void> {
  return writeAudit(rt.mongo.collections.audit, actor, action, entry);
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
