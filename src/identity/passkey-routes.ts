import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../shared/clock';
import { ApiError } from '../shared/errors';
import type { AuditRecorder } from '../shared/audit';
import type { AccountStore } from './accounts';
import type { AccountBase } from './identity-store';
import { requestRelyingParty, type Passkeys } from './passkeys';
import { auditAccount, type IdentityRealm } from './realm';
import { accountActor, attemptOf, completeSignIn, pendingStep, sessionView } from './session-actions';
import type { SessionStage } from './session-state';
import { requireProof, spendProof, takeChallenge } from './proofs';
import type { SignIn } from './sign-in';
import type { SignInNotice } from './sign-in-notice';

export interface PasskeyRouteDeps<A extends AccountBase> {
  realm: IdentityRealm<A>;
  accounts: AccountStore<A>;
  passkeys: Passkeys;
  signIn: SignIn<A>;
  audit: AuditRecorder;
  clock: Clock;
  serviceName: string;
  notice: SignInNotice | null;
  // The console's address when configured: the relying party's ID and origin come from it.
  consoleUrl: string | null;
}

// Passkeys (WebAuthn): the second step of a sign-in (or of a re-authentication), and adding one while
// enrolling or from the account menu after a proof. Public like the other steps: each reads the stage
// the session is at.
export function passkeyRoutes<A extends AccountBase>(d: PasskeyRouteDeps<A>) {
  const rpOf = (req: FastifyRequest) => requestRelyingParty(d.serviceName, d.consoleUrl, req);
  const pending = (req: FastifyRequest, stages: readonly SessionStage[]) => pendingStep(d, req, stages);
  const signedIn = (
    req: FastifyRequest,
    reply: FastifyReply,
    account: A,
    method: 'password' | 'passkey',
    details: Record<string, unknown>,
  ) => completeSignIn(d, req, reply, account, method, details);

  const api = d.realm.prefix;

  return async function register(app: FastifyInstance): Promise<void> {
    const open = d.realm.open;

    app.post(`${api}/auth/passkey/options`, { schema: d.realm.schemas.passkey.options, config: open }, async (req) => {
      const account = await pending(req, ['second_factor', 'signed_in']);
      const options = await d.passkeys.authenticationOptions(account, rpOf(req));
      req.session.webauthn_challenge = options.challenge;
      return options;
    });

    app.post<{ Body: { response: AuthenticationResponseJSON } }>(
      `${api}/auth/passkey`,
      { schema: d.realm.schemas.passkey.signIn, config: open },
      async (req, reply) => {
        const account = await pending(req, ['second_factor']);
        const challenge = takeChallenge(req);
        await d.signIn.passkey(
          account,
          () => d.passkeys.authenticate(account, req.body.response, challenge, rpOf(req)),
          attemptOf(req, d.realm),
          req.session,
        );
        return signedIn(req, reply, account, 'passkey', { second_factor: 'passkey' });
      },
    );

    app.post(
      `${api}/auth/passkey/register/options`,
      { schema: d.realm.schemas.passkey.registerOptions, config: open },
      async (req) => {
        const account = await pending(req, ['enroll', 'signed_in']);
        requireProof(req, d.clock);
        const options = await d.passkeys.registrationOptions(account, rpOf(req));
        req.session.webauthn_challenge = options.challenge;
        return options;
      },
    );

    // While enrolling the password was the sign-in; the new passkey proves only that it was made now.
    app.post<{ Body: { response: RegistrationResponseJSON; name: string } }>(
      `${api}/auth/passkey/register`,
      { schema: d.realm.schemas.passkey.register, config: open },
      async (req, reply) => {
        const account = await pending(req, ['enroll', 'signed_in']);
        requireProof(req, d.clock);
        const added = await d.passkeys.register(
          account,
          req.body.response,
          req.body.name,
          takeChallenge(req),
          rpOf(req),
        );
        if (!added) throw new ApiError('second_factor_invalid');
        spendProof(req);
        await auditAccount(
          d.audit,
          d.realm,
          accountActor(account, req.session.method ?? 'password', req.ip),
          'second_factor_added',
          account,
          { kind: 'passkey' },
        );
        return req.session.stage === 'enroll'
          ? signedIn(req, reply, account, 'password', { second_factor: 'passkey', enrolled: true })
          : sessionView(req, d.realm);
      },
    );
  };
}
