import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../../shared/clock';
import { ApiError } from '../../shared/errors';
import type { AuditLog } from '../audit-log';
import type { AccountStore } from './accounts';
import { accountActor } from './auth-routes';
import { CSRF_HEADER, csrfTokens } from './authenticate';
import type { AccountDoc } from './identity-store';
import { passkeySchemas } from './identity-schemas';
import { relyingParty, type Passkeys } from './passkeys';
import { establish, pendingAccount, sessionView } from './session-actions';
import type { SessionStage } from './session-state';
import type { SignIn } from './sign-in';

export interface PasskeyRouteDeps {
  accounts: AccountStore;
  passkeys: Passkeys;
  signIn: SignIn;
  audit: AuditLog;
  clock: Clock;
  serviceName: string;
  // The console's address when configured: the relying party's ID and origin come from it.
  consoleUrl: string | null;
}

// Like every step of a sign-in under way, these change the session: they carry its CSRF token.
function checkCsrf(req: FastifyRequest): void {
  const given = req.headers[CSRF_HEADER];
  if (typeof given !== 'string' || !req.session._csrf || !csrfTokens.verify(req.session._csrf, given)) throw new ApiError('csrf_invalid');
}

// The challenge the options gave this session, taken so it verifies one answer at most.
function takeChallenge(req: FastifyRequest): string {
  const challenge = req.session.webauthn_challenge;
  req.session.webauthn_challenge = undefined;
  if (!challenge) throw new ApiError('sign_in_step_missing');
  return challenge;
}

// Passkeys (WebAuthn): the second step of a sign-in, and adding one while enrolling or from the
// account menu. Public like the other steps: each reads the stage the session is at.
export function passkeyRoutes(d: PasskeyRouteDeps) {
  const rpOf = (req: FastifyRequest) => relyingParty(d.serviceName, d.consoleUrl, { origin: req.headers.origin, protocol: req.protocol, host: req.host });
  const pending = async (req: FastifyRequest, stages: readonly SessionStage[]): Promise<AccountDoc> => {
    checkCsrf(req);
    const account = await d.accounts.find(pendingAccount(req, stages, d.clock));
    if (!account || account.status !== 'active') throw new ApiError('sign_in_step_missing');
    return account;
  };
  const signedIn = async (req: FastifyRequest, account: AccountDoc, method: 'password' | 'passkey', details: Record<string, unknown>) => {
    await establish(req, account, 'signed_in', method, d.clock);
    await d.accounts.update(account._id, { last_sign_in_at: d.clock.now() });
    await d.audit.record(accountActor(account, method, req.ip), 'account.sign_in', { target: account._id, details });
    return sessionView(req);
  };

  return async function register(app: FastifyInstance): Promise<void> {
    const open = { access: 'public' } as const;

    app.post('/api/auth/passkey/options', { schema: passkeySchemas.options, config: open }, async (req) => {
      const account = await pending(req, ['second_factor']);
      const options = await d.passkeys.authenticationOptions(account, rpOf(req));
      req.session.webauthn_challenge = options.challenge;
      return options;
    });

    app.post<{ Body: { response: AuthenticationResponseJSON } }>('/api/auth/passkey', { schema: passkeySchemas.signIn, config: open }, async (req) => {
      const account = await pending(req, ['second_factor']);
      const challenge = takeChallenge(req);
      await d.signIn.passkey(account, () => d.passkeys.authenticate(account, req.body.response, challenge, rpOf(req)), req.ip);
      return signedIn(req, account, 'passkey', { second_factor: 'passkey' });
    });

    app.post('/api/auth/passkey/register/options', { schema: passkeySchemas.registerOptions, config: open }, async (req) => {
      const account = await pending(req, ['enroll', 'signed_in']);
      const options = await d.passkeys.registrationOptions(account, rpOf(req));
      req.session.webauthn_challenge = options.challenge;
      return options;
    });

    // While enrolling the password was the sign-in; the new passkey proves only that it was made now.
    app.post<{ Body: { response: RegistrationResponseJSON; name: string } }>('/api/auth/passkey/register', { schema: passkeySchemas.register, config: open }, async (req) => {
      const account = await pending(req, ['enroll', 'signed_in']);
      const added = await d.passkeys.register(account, req.body.response, req.body.name, takeChallenge(req), rpOf(req));
      if (!added) throw new ApiError('second_factor_invalid');
      await d.audit.record(accountActor(account, req.session.method ?? 'password', req.ip), 'account.second_factor_added', { target: account._id, details: { kind: 'passkey' } });
      return req.session.stage === 'enroll' ? signedIn(req, account, 'password', { second_factor: 'passkey', enrolled: true }) : sessionView(req);
    });
  };
}
