import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../../shared/errors';
import type { AuditRecorder } from '../../../shared/audit';
import type { AccountStore } from '../../../identity/accounts';
import type { PortalAccountDoc } from '../../../identity/identity-store';
import type { RedisSessionStore } from '../../../identity/session-store';
import { orNotFound } from '../../../shared/http/lookup';
import { portalUserView } from './portal-users';
import { portalEmailFreeSchema } from './user-schemas';

export interface EmailRouteDeps {
  accounts: AccountStore<PortalAccountDoc>;
  sessions: RedisSessionStore;
  audit: AuditRecorder;
}

// The manager's answer to a portal email claimed by the wrong partner (a partner's invitation of an
// address its owner's partner meant to invite): the account that claimed the email (the one its sign-in
// tries first) is disabled and gives the claim up, which passes to the oldest other active account with
// it, if any. Only who manages accounts may.
export function portalEmailRoute(d: EmailRouteDeps) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.post<{ Body: { email: string } }>(
      '/api/portal-emails/free',
      { schema: portalEmailFreeSchema, config: { access: 'accounts.manage', audit: 'portal.email.free' } },
      async (req) => {
        const holder = orNotFound(await d.accounts.byEmail(req.body.email));
        if (!(await d.accounts.releaseEmail(holder.email, holder._id))) throw new ApiError('not_found');
        const released = (await d.accounts.update(holder._id, { status: 'disabled' })) ?? holder;
        await d.sessions.revokeAll(holder._id);
        const next = await nextHolder(d.accounts, holder);
        await d.audit.record(req.actor, 'portal.email.free', {
          partnerId: holder.partner_id,
          target: holder._id,
          details: { from: holder.status, to: next?._id ?? null, to_partner: next?.partner_id ?? null },
        });
        return {
          email: holder.email,
          released_from: portalUserView(released),
          signs_in_to: next ? portalUserView(next) : null,
        };
      },
    );
  };
}

async function nextHolder(
  accounts: AccountStore<PortalAccountDoc>,
  from: PortalAccountDoc,
): Promise<PortalAccountDoc | null> {
  const others = (await accounts.list({ email: from.email, status: 'active' }))
    .filter((a) => a._id !== from._id)
    .sort((a, b) => a.created_at.getTime() - b.created_at.getTime());
  for (const other of others) if (await accounts.claimEmail(other)) return other;
  return null;
}
