import type { FastifyRequest } from 'fastify';
import type { AuditActor } from '../../../shared/audit';
import { ApiError } from '../../../shared/errors';
import type { PortalRole } from '../../../shared/identity/portal-roles';
import type { AuditLog } from '../../audit-log';
import type { AccountStore } from '../../identity/accounts';
import type { PortalAccountDoc } from '../../identity/identity-store';
import type { OneTimeLinks } from '../../identity/links';
import { deliverLink } from '../../identity/link-delivery';
import type { Mailer } from '../../../shared/mail/mailer';
import { portalLinkPath } from './portal-realm';

export function portalUserView(doc: PortalAccountDoc) {
  return {
    id: doc._id,
    email: doc.email,
    name: doc.name,
    role: doc.role,
    partner_id: doc.partner_id,
    status: doc.status,
    second_factors: { totp: doc.totp !== null, passkeys: doc.passkey_ids.length },
    created_at: doc.created_at,
    created_by: doc.created_by,
    last_sign_in_at: doc.last_sign_in_at,
  };
}

export interface PortalInviteDeps {
  accounts: AccountStore<PortalAccountDoc>;
  links: OneTimeLinks;
  audit: AuditLog;
  // Where the pages are served; null: the address the request came to.
  consoleUrl: string | null;
  // Null: no relay configured; the link is then shown in the answer.
  mailer: Mailer | null;
}

export interface PortalInvitation {
  email: string;
  name: string;
  role: PortalRole;
  partnerId: string;
}

// A partner's person invited, by their manager or a partner admin: an account of the portal realm
// and a one-time link, mailed to the person (shown once in the answer where no relay is configured). Inviting again an email of the same partner that nobody has used
// yet gives a new link (the old one still works until it expires); any other taken email: 409.
export async function invitePortalUser(
  d: PortalInviteDeps,
  req: FastifyRequest,
  actor: AuditActor,
  who: PortalInvitation,
) {
  const made = await d.accounts.create(
    { email: who.email, name: who.name, role: who.role, partner_id: who.partnerId },
    actor.id,
  );
  const account = made ?? (await again(d, who));
  const link = await d.links.create('invitation', account._id, actor.id);
  await d.audit.record(actor, 'portal.user.invite', {
    partnerId: who.partnerId,
    target: account._id,
    details: { role: who.role },
  });
  const base = d.consoleUrl ?? `${req.protocol}://${req.host}`;
  const delivered = await deliverLink(d.mailer, link, portalLinkPath, base, {
    template: 'portal-invitation',
    to: account.email,
  });
  return { user: portalUserView(account), link: delivered };
}

async function again(d: PortalInviteDeps, who: PortalInvitation): Promise<PortalAccountDoc> {
  const existing = await d.accounts.byEmail(who.email);
  if (!existing || existing.partner_id !== who.partnerId || existing.status !== 'invited') {
    throw new ApiError('conflict', { detail: 'A portal account with this email exists' });
  }
  return (await d.accounts.update(existing._id, { name: who.name, role: who.role })) ?? existing;
}
