import type { FastifyRequest } from 'fastify';
import type { AuditActor, AuditRecorder } from '../../../shared/audit';
import { ApiError } from '../../../shared/errors';
import type { PortalRole } from '../../../identity/portal-roles';
import { normalEmail, type AccountStore } from '../../../identity/accounts';
import type { PortalAccountDoc } from '../../../identity/identity-store';
import type { OneTimeLinks } from '../../../identity/links';
import { deliverLink } from '../../../identity/link-delivery';
import type { Mailer } from '../../../shared/mail/mailer';
import { portalLinkPath } from '../../../identity/portal-realm';

export function portalUserView(doc: PortalAccountDoc) {
  return {
    id: doc._id,
    email: doc.email,
    name: doc.name,
    role: doc.role,
    partner_id: doc.partner_id,
    time_zone: doc.time_zone ?? null,
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
  audit: AuditRecorder;
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
// and a one-time link, mailed to the person (shown once in the answer where no relay is configured).
// Inviting again an invited email of the same partner gives a new link (the old one still works until it
// expires); an email the partner's own person already uses: 409.
export async function invitePortalUser(
  d: PortalInviteDeps,
  req: FastifyRequest,
  actor: AuditActor,
  who: PortalInvitation,
) {
  const account = await invitee(d, who, actor.id);
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

// The partner's account for the email: its own invited one again, or a new one. A new one claims the
// email (a sign-in tries it first) when no account holds it; when another partner's does, it is made all
// the same, unclaimed, so that no answer tells the inviter whether the email is in use elsewhere.
async function invitee(d: PortalInviteDeps, who: PortalInvitation, by: string): Promise<PortalAccountDoc> {
  const own = await ownAccount(d, who);
  if (own) return again(d, own, who);
  const fields = { email: who.email, name: who.name, role: who.role, partner_id: who.partnerId };
  const made = await d.accounts.create(fields, by);
  if (made) return made;
  const raced = await ownAccount(d, who);
  return raced ? again(d, raced, who) : d.accounts.createUnclaimed(fields, by);
}

const ownAccount = async (d: PortalInviteDeps, who: PortalInvitation): Promise<PortalAccountDoc | null> =>
  (await d.accounts.list({ partner_id: who.partnerId, email: normalEmail(who.email) }))[0] ?? null;

// An invited account invited again claims its email if a manager freed it meanwhile.
async function again(d: PortalInviteDeps, own: PortalAccountDoc, who: PortalInvitation): Promise<PortalAccountDoc> {
  if (own.status !== 'invited') throw new ApiError('conflict', { detail: 'A portal account with this email exists' });
  await d.accounts.claimEmail(own);
  return (await d.accounts.update(own._id, { name: who.name, role: who.role })) ?? own;
}
