import {
  auditListPrefix,
  writeAudit,
  type AuditAction,
  type AuditActor,
  type AuditCollections,
  type AuditEntry,
} from '../shared/audit';
import { findByIds } from '../shared/mongo/bulk';
import type { AuditDoc } from '../shared/mongo/documents';
import { ListIndex } from '../shared/store/list-index';
import { listPage, type CursorPage, type CursorRequest } from './pagination';
import { ALL_PARTNERS, partnersToRead, type PartnerScope } from './partner-scope';

export type { AuditAction } from '../shared/audit';

export interface AuditView {
  id: string;
  at: Date;
  actor: string;
  actor_name: string;
  auth_method: string | null;
  client_address: string | null;
  action: string;
  affiliate_id: string | null;
  target: string | null;
  details: Record<string, unknown>;
}

export function auditView(doc: AuditDoc): AuditView {
  return {
    id: doc._id,
    at: doc.at,
    actor: doc.actor,
    actor_name: doc.actor_name ?? doc.actor,
    auth_method: doc.auth_method ?? null,
    client_address: doc.client_address ?? null,
    action: doc.action,
    affiliate_id: doc.partner_id,
    target: doc.target,
    details: doc.details,
  };
}

// Who did what, when, to which partner: one document per manager action, listed newest first from
// its list read model.
export class AuditLog {
  private readonly index: ListIndex;

  constructor(private readonly c: AuditCollections) {
    this.index = new ListIndex(c.auditList);
  }

  record(actor: AuditActor, action: AuditAction, entry: AuditEntry = {}): Promise<void> {
    return writeAudit(this.c, actor, action, entry);
  }

  // A scoped list merges each partner's view: entries about no partner (sign-ins, accounts) are not in it.
  list(
    filter: { affiliate_id?: string; action?: string },
    page: CursorRequest,
    scope: PartnerScope = ALL_PARTNERS,
  ): Promise<CursorPage<AuditView>> {
    const { action } = filter;
    const partners = partnersToRead(scope, filter.affiliate_id);
    return listPage(
      {
        index: this.index,
        query: {
          prefixes:
            partners === null
              ? [auditListPrefix({ action })]
              : partners.map((partnerId) => auditListPrefix({ partnerId, action })),
          order: 'desc',
        },
        load: (ids) => findByIds(this.c.audit, ids),
        view: auditView,
      },
      page,
    );
  }
}
