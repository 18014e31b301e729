import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../shared/clock';
import type { PiiCipher } from '../shared/crypto/pii-cipher';
import { ApiError } from '../shared/errors';
import type { AuditRecorder } from '../shared/audit';
import type { AccountStore } from './accounts';
import type { AccountBase } from './identity-store';
import type { OneTimeLinks } from './links';
import { hashPassword, passwordProblem } from './passwords';
import { auditAccount, type IdentityRealm } from './realm';
import {
  accountActor,
  attemptOf,
  checkCsrf,
  completeSignIn,
  establish,
  inRealm,
  pendingStep,
  sessionView,
} from './session-actions';
import { requireProof, spendProof } from './proofs';
import { refuseExpired } from './session-check';
import type { RedisSessionStore, SessionTimeouts } from './session-store';
import type { SignIn } from './sign-in';
import type { SignInNotice } from './sign-in-notice';
import { newTotpSecret, totpStep, totpUri } from './totp';

export interface AuthRouteDeps<A extends AccountBase> {
  realm: IdentityRealm<A>;
  accounts: AccountStore<A>;
  links: OneTimeLinks;
  signIn: SignIn<A>;
  sessions: RedisSessionStore;
  timeouts: SessionTimeouts;
  cipher: PiiCipher;
  audit: AuditRecorder;
  clock: Clock;
  serviceName: string;
  notice: SignInNotice | null;
}

// The steps of signing in to a realm (the manager's under /api, the portal's under /portal/api): the
// password, then a TOTP code or a passkey (passkey-routes.ts), or setting a second factor up when the
// account has none; one-time links; signing out. Public: each step reads the session the one before it left.
export function authRoutes<A extends AccountBase>(d: AuthRouteDeps<A>) {
  const signedIn = (req: FastifyRequest, reply: FastifyReply, account: A, detail: Record<string, unknown>) =>
    completeSignIn(d, req, reply, account, 'password', detail);
  const view = (req: FastifyRequest) => sessionView(req, d.realm);
  const withFactors = (req: FastifyRequest, account: A) => ({
    ...view(req),
    second_factors: { totp: account.totp !== null, passkey: account.passkey_ids.length > 0 },
  });
  const api = d.realm.prefix;

  return async function register(app: FastifyInstance): Promise<void> {
    const open = d.realm.open;

    app.get(`${api}/session`, { schema: d.realm.schemas.auth.session, config: open }, async (req) => {
      if (!req.session.stage || !inRealm(req, d.realm as IdentityRealm<AccountBase>))
        throw new ApiError(d.realm.unauthorized);
      await refuseExpired(req, d);
      return view(req);
    });

    app.post<{ Body: { email: string; password: string } }>(
      `${api}/auth/sign-in`,
      { schema: d.realm.schemas.auth.signIn, config: open },
      async (req) => {
        const { account, stage } = await d.signIn.password(req.body.email, req.body.password, attemptOf(req, d.realm));
        await establish(req, d.realm, account, stage, 'password', d.clock);
        return withFactors(req, account);
      },
    );

    app.post<{ Body: { code: string } }>(
      `${api}/auth/totp`,
      { schema: d.realm.schemas.auth.code, config: open },
      async (req, reply) => {
        const account = await pendingStep(d, req, ['second_factor']);
        await d.signIn.totp(account, req.body.code, attemptOf(req, d.realm), req.session);
        return signedIn(req, reply, account, { second_factor: 'totp' });
      },
    );

    // Setting TOTP up: while enrolling at a first sign-in, or signed in (the account menu) after a proof.
    // An account has one TOTP: a confirmed new one replaces it.
    app.post(`${api}/auth/totp/setup`, { schema: d.realm.schemas.auth.totpSetup, config: open }, async (req) => {
      const account = await pendingStep(d, req, ['enroll', 'signed_in']);
      requireProof(req, d.clock);
      const secret = newTotpSecret();
      req.session.totp_setup = d.cipher.encrypt(secret);
      return { secret, uri: totpUri(secret, account.email, d.serviceName) };
    });

    app.post<{ Body: { code: string } }>(
      `${api}/auth/totp/confirm`,
      { schema: d.realm.schemas.auth.code, config: open },
      async (req, reply) => {
        const account = await pendingStep(d, req, ['enroll', 'signed_in']);
        requireProof(req, d.clock);
        const secret = req.session.totp_setup ? d.cipher.decrypt(req.session.totp_setup) : null;
        const step = secret ? totpStep(secret, req.body.code, null, d.clock.now().getTime()) : null;
        if (!secret || step === null) throw new ApiError('second_factor_invalid');
        await d.accounts.update(account._id, { totp: { secret_enc: d.cipher.encrypt(secret), last_step: step } });
        req.session.totp_setup = undefined;
        spendProof(req);
        await auditAccount(
          d.audit,
          d.realm,
          accountActor(account, req.session.method ?? 'password', req.ip),
          'second_factor_added',
          account,
          { kind: 'totp', replaced: account.totp !== null },
        );
        return req.session.stage === 'enroll'
          ? signedIn(req, reply, account, { second_factor: 'totp', enrolled: true })
          : view(req);
      },
    );

    app.post<{ Body: { token: string } }>(
      `${api}/auth/links/peek`,
      { schema: d.realm.schemas.auth.linkPeek, config: open },
      async (req) => {
        const link = await d.links.peek(req.body.token);
        const account = link ? await d.accounts.find(link.account_id) : null;
        if (!link || !account) throw new ApiError('link_invalid');
        return {
          kind: link.kind,
          email: account.email,
          name: account.name,
          role: account.role,
          expires_at: link.expires_at,
        };
      },
    );

    // An invitation or a reset: sets the password, ends every session and every other link the account
    // had, and leaves this one at the second factor (or at setting one up).
    app.post<{ Body: { token: string; password: string; name?: string } }>(
      `${api}/auth/links/use`,
      { schema: d.realm.schemas.auth.linkUse, config: open },
      async (req) => {
        const problem = passwordProblem(req.body.password);
        if (problem) throw new ApiError('invalid_request', { detail: `/password: ${problem}` });
        const found = await d.links.peek(req.body.token);
        const account = found ? await d.accounts.find(found.account_id) : null;
        if (!account) throw new ApiError('link_invalid');
        // It starts a sign-in: the throttle holds it back as it does every step, the link left unused.
        await d.signIn.admitted(account.email, attemptOf(req, d.realm));
        const link = await d.links.use(req.body.token);
        if (!link || account.status === 'disabled') throw new ApiError('link_invalid');
        // Hashed only for a link found: argon2's 19 MiB is not spent on a guessed token.
        const updated = await d.accounts.update(account._id, {
          password_hash: await hashPassword(req.body.password),
          status: 'active',
          ...(req.body.name ? { name: req.body.name } : {}),
        });
        if (!updated) throw new ApiError('link_invalid');
        await d.links.endAll(account._id);
        await d.sessions.revokeAll(account._id);
        await auditAccount(d.audit, d.realm, accountActor(updated, 'password', req.ip), 'password_set', updated, {
          link: link.kind,
        });
        const hasFactor = updated.totp !== null || updated.passkey_ids.length > 0;
        await establish(req, d.realm, updated, hasFactor ? 'second_factor' : 'enroll', 'password', d.clock);
        return withFactors(req, updated);
      },
    );

    app.post(`${api}/auth/sign-out`, { schema: d.realm.schemas.auth.signOut, config: open }, async (req, reply) => {
      const s = req.session;
      if (s.account_id && s.stage === 'signed_in') {
        checkCsrf(req);
        const account = await d.accounts.find(s.account_id);
        if (account)
          await auditAccount(
            d.audit,
            d.realm,
            accountActor(account, s.method ?? 'password', req.ip),
            'sign_out',
            account,
          );
      }
      if (s.sessionId) await s.destroy();
      return reply.code(204).send();
    });
  };
}
