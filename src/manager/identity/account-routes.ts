import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../../shared/clock';
import { ApiError } from '../../shared/errors';
import type { AuditLog } from '../audit-log';
import { orNotFound, type IdParams } from '../../shared/http/lookup';
import { accountView, type AccountPatch, type AccountStore, type NewAccount } from '../../identity/accounts';
import type { AccountDoc } from '../../identity/identity-store';
import { accountSchemas } from './identity-schemas';
import type { OneTimeLinks } from '../../identity/links';
import { deliverLink } from '../../identity/link-delivery';
import type { Mailer } from '../../shared/mail/mailer';
import { mayGrant, type Role } from '../../identity/roles';
import type { RedisSessionStore } from '../../identity/session-store';
import { principalIn } from '../../identity/principal';

export interface AccountRouteDeps {
  accounts: AccountStore;
  links: OneTimeLinks;
  sessions: RedisSessionStore;
  audit: AuditLog;
  clock: Clock;
  // Whether a partner exists (an affiliate manager is given existing partners only), and an agent.
  partnerExists(id: string): Promise<boolean>;
  agentExists(id: string): Promise<boolean>;
  // Where the console is served, so a link can be shown whole; null: the console makes it from its own address.
  consoleUrl: string | null;
  // Null: no relay configured; links are then shown in the answers.
  mailer: Mailer | null;
}

// Where a one-time link opens the console (the token after #, so it reaches no server log).
export const linkPath = (token: string): string => `/console/#/link/${token}`;

// Accounts as owners and admins keep them: invitations (a one-time link shown once), roles and
// assigned partners, disabling, password-reset links. Any change of an account's rights ends its
// sessions; an admin neither makes nor changes owners and admins.
export function accountRoutes(d: AccountRouteDeps) {
  // A link goes by mail to its account; the break-glass token's maker keeps an owner's (the first owner's
  // set-up and the recovery of one happen before anyone can read mail here).
  const deliver = (req: FastifyRequest, made: { token: string; expires_at: Date }, account: AccountDoc) =>
    deliverLink(d.mailer, made, linkPath, d.consoleUrl, {
      template: account.status === 'invited' ? 'manager-invitation' : 'password-reset',
      to: account.email,
      inAnswer: req.principal.kind === 'break_glass' && account.role === 'owner',
    });
  const checkPartners = async (ids: readonly string[]): Promise<void> => {
    for (const id of ids)
      if (!(await d.partnerExists(id)))
        throw new ApiError('invalid_request', { detail: `/partner_ids: no partner ${id}` });
  };
  const checkAgent = async (id: string | null | undefined): Promise<void> => {
    if (id && !(await d.agentExists(id)))
      throw new ApiError('invalid_request', { detail: `/agent_id: no agent ${id}` });
  };
  const mayChange = (req: FastifyRequest, account: AccountDoc, newRole?: Role): void => {
    const actor = principalIn(req, 'manager').role;
    if (!mayGrant(actor, account.role) || (newRole !== undefined && !mayGrant(actor, newRole))) {
      throw new ApiError('forbidden', { permission: 'accounts.manage (an owner, for owners and admins)' });
    }
  };

  return async function register(app: FastifyInstance): Promise<void> {
    const read = { access: 'accounts.read', audit: 'account.read' } as const;
    const manage = { access: 'accounts.manage' } as const;

    app.get('/api/accounts', { schema: accountSchemas.list, config: read }, async () => ({
      items: (await d.accounts.list()).map(accountView),
    }));

    app.get<IdParams>('/api/accounts/:id', { schema: accountSchemas.show, config: read }, async (req) =>
      accountView(orNotFound(await d.accounts.find(req.params.id))),
    );

    app.post<{ Body: NewAccount }>(
      '/api/accounts',
      { schema: accountSchemas.invite, config: { ...manage, audit: 'account.invite' } },
      async (req, reply) => {
        if (!mayGrant(principalIn(req, 'manager').role, req.body.role))
          throw new ApiError('forbidden', { permission: `accounts.manage (an owner, to make ${req.body.role}s)` });
        await checkPartners(req.body.partner_ids ?? []);
        await checkAgent(req.body.agent_id);
        const account = await d.accounts.create(
          { ...req.body, partner_ids: req.body.partner_ids ?? [], agent_id: req.body.agent_id ?? null, sso: null },
          req.actor.id,
        );
        if (!account) throw new ApiError('conflict', { detail: 'An account with this email exists' });
        const link = await d.links.create('invitation', account._id, req.actor.id);
        await d.audit.record(req.actor, 'account.invite', {
          target: account._id,
          details: { role: account.role, partner_ids: account.partner_ids },
        });
        return reply.code(201).send({ account: accountView(account), invitation: await deliver(req, link, account) });
      },
    );

    app.patch<IdParams & { Body: AccountPatch }>(
      '/api/accounts/:id',
      { schema: accountSchemas.update, config: { ...manage, audit: 'account.update' } },
      async (req) => {
        const account = orNotFound(await d.accounts.find(req.params.id));
        mayChange(req, account, req.body.role);
        if (account._id === req.principal.id && (req.body.role !== undefined || req.body.status === 'disabled')) {
          throw new ApiError('conflict', {
            detail: 'You cannot change your own role or disable yourself; ask another owner',
          });
        }
        if (req.body.partner_ids) await checkPartners(req.body.partner_ids);
        await checkAgent(req.body.agent_id);
        const updated = orNotFound(await d.accounts.update(account._id, req.body));
        // A change of rights ends the account's sessions: each is a snapshot of the rights it was given.
        await d.sessions.revokeAll(account._id);
        const changes = Object.fromEntries(
          Object.keys(req.body).map((k) => [
            k,
            { from: account[k as keyof AccountPatch], to: updated[k as keyof AccountPatch] },
          ]),
        );
        await d.audit.record(req.actor, 'account.update', { target: account._id, details: changes });
        return accountView(updated);
      },
    );

    // A new one-time link: an invitation again for an account never set up, else a password reset.
    app.post<IdParams>(
      '/api/accounts/:id/link',
      { schema: accountSchemas.link, config: { ...manage, audit: 'account.password_reset_link' } },
      async (req, reply) => {
        const account = orNotFound(await d.accounts.find(req.params.id));
        mayChange(req, account);
        if (account.sso)
          throw new ApiError('conflict', {
            detail: 'This account signs in through single sign-on; its provider keeps its password',
          });
        const kind = account.status === 'invited' ? 'invitation' : 'password_reset';
        const link = await d.links.create(kind, account._id, req.actor.id);
        await d.audit.record(req.actor, kind === 'invitation' ? 'account.invite' : 'account.password_reset_link', {
          target: account._id,
        });
        return reply.code(201).send({ kind, ...(await deliver(req, link, account)) });
      },
    );
  };
}
