import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../../shared/clock';
import type { PiiCipher } from '../../shared/crypto/pii-cipher';
import { ApiError } from '../../shared/errors';
import type { AuditLog } from '../audit-log';
import type { AccountStore } from './accounts';
import type { AccountDoc } from './identity-store';
import { authSchemas } from './identity-schemas';
import type { OneTimeLinks } from './links';
import { hashPassword, passwordProblem } from './passwords';
import { accountActor, checkCsrf, completeSignIn, establish, pendingStep, sessionView } from './session-actions';
import type { RedisSessionStore } from './session-store';
import type { SignIn } from './sign-in';
import { newTotpSecret, totpStep, totpUri } from './totp';

export interface AuthRouteDeps {
  accounts: AccountStore;
  links: OneTimeLinks;
  signIn: SignIn;
  sessions: RedisSessionStore;
  cipher: PiiCipher;
  audit: AuditLog;
  clock: Clock;
  serviceName: string;
}

// The steps of signing in: the password, then a TOTP code or a passkey (passkey-routes.ts), or
// setting a second factor up when the account has none; one-time links; signing out. Public: each
// step reads the session the one before it left.
export function authRoutes(d: AuthRouteDeps) {
  const signedIn = (req: FastifyRequest, account: AccountDoc, detail: Record<string, unknown>) => completeSignIn(d, req, account, 'password', detail);

  return async function register(app: FastifyInstance): Promise<void> {
    const open = { access: 'public' } as const;

    app.get('/api/session', { schema: authSchemas.session, config: open }, async (req) => {
      if (!req.session.stage) throw new ApiError('manager_unauthorized');
      return sessionView(req);
    });

    app.post<{ Body: { email: string; password: string } }>('/api/auth/sign-in', { schema: authSchemas.signIn, config: open }, async (req) => {
      const { account, stage } = await d.signIn.password(req.body.email, req.body.password, req.ip);
      await establish(req, account, stage, 'password', d.clock);
      return { ...sessionView(req), second_factors: { totp: account.totp !== null, passkey: account.passkey_ids.length > 0 } };
    });

    app.post<{ Body: { code: string } }>('/api/auth/totp', { schema: authSchemas.code, config: open }, async (req) => {
      const account = await pendingStep(d, req, ['second_factor']);
      await d.signIn.totp(account, req.body.code, req.ip);
      return signedIn(req, account, { second_factor: 'totp' });
    });

    // Setting TOTP up: while enrolling at a first sign-in, or signed in (the account menu).
    app.post('/api/auth/totp/setup', { schema: authSchemas.totpSetup, config: open }, async (req) => {
      const account = await pendingStep(d, req, ['enroll', 'signed_in']);
      const secret = newTotpSecret();
      req.session.totp_setup = d.cipher.encrypt(secret);
      return { secret, uri: totpUri(secret, account.email, d.serviceName) };
    });

    app.post<{ Body: { code: string } }>('/api/auth/totp/confirm', { schema: authSchemas.code, config: open }, async (req) => {
      const account = await pendingStep(d, req, ['enroll', 'signed_in']);
      const secret = req.session.totp_setup ? d.cipher.decrypt(req.session.totp_setup) : null;
      const step = secret ? totpStep(secret, req.body.code, null, d.clock.now().getTime()) : null;
      if (!secret || step === null) throw new ApiError('second_factor_invalid');
      await d.accounts.update(account._id, { totp: { secret_enc: d.cipher.encrypt(secret), last_step: step } });
      req.session.totp_setup = undefined;
      await d.audit.record(accountActor(account, req.session.method ?? 'password', req.ip), 'account.second_factor_added', { target: account._id, details: { kind: 'totp' } });
      return req.session.stage === 'enroll' ? signedIn(req, account, { second_factor: 'totp', enrolled: true }) : sessionView(req);
    });

    app.get<{ Params: { token: string } }>('/api/auth/links/:token', { schema: authSchemas.linkPeek, config: open }, async (req) => {
      const link = await d.links.peek(req.params.token);
      const account = link ? await d.accounts.find(link.account_id) : null;
      if (!link || !account) throw new ApiError('link_invalid');
      return { kind: link.kind, email: account.email, name: account.name, role: account.role, expires_at: link.expires_at };
    });

    // An invitation or a reset: sets the password, ends every session the account had, and leaves
    // this one at the second factor (or at setting one up).
    app.post<{ Params: { token: string }; Body: { password: string; name?: string } }>('/api/auth/links/:token', { schema: authSchemas.linkUse, config: open }, async (req) => {
      const problem = passwordProblem(req.body.password);
      if (problem) throw new ApiError('invalid_request', { detail: `/password: ${problem}` });
      const hash = await hashPassword(req.body.password);
      const link = await d.links.use(req.params.token);
      const account = link ? await d.accounts.find(link.account_id) : null;
      if (!link || !account || account.status === 'disabled') throw new ApiError('link_invalid');
      const updated = await d.accounts.update(account._id, { password_hash: hash, status: 'active', ...(req.body.name ? { name: req.body.name } : {}) });
      if (!updated) throw new ApiError('link_invalid');
      await d.sessions.revokeAll(account._id);
      await d.audit.record(accountActor(updated, 'password', req.ip), 'account.password_set', { target: account._id, details: { link: link.kind } });
      const hasFactor = updated.totp !== null || updated.passkey_ids.length > 0;
      await establish(req, updated, hasFactor ? 'second_factor' : 'enroll', 'password', d.clock);
      return { ...sessionView(req), second_factors: { totp: updated.totp !== null, passkey: updated.passkey_ids.length > 0 } };
    });

    app.post('/api/auth/sign-out', { schema: authSchemas.signOut, config: open }, async (req, reply) => {
      const s = req.session;
      if (s.account_id && s.stage === 'signed_in') {
        checkCsrf(req);
        const account = await d.accounts.find(s.account_id);
        if (account) await d.audit.record(accountActor(account, s.method ?? 'password', req.ip), 'account.sign_out', { target: account._id });
      }
      if (s.sessionId) await s.destroy();
      return reply.code(204).send();
    });
  };
}
