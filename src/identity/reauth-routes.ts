import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../shared/errors';
import type { AccountBase } from './identity-store';
import { requestRelyingParty, type Passkeys } from './passkeys';
import { PROOF_MS, takeChallenge } from './proofs';
import { attemptOf, pendingStep, sessionView, type SignInSteps } from './session-actions';

export interface ReauthDeps<A extends AccountBase> extends SignInSteps<A> {
  passkeys: Passkeys;
  serviceName: string;
  consoleUrl: string | null;
}

interface Proof {
  current_password: string;
  code?: string;
  passkey?: AuthenticationResponseJSON;
}

// Confirming it is you before changing second factors (a stolen session cookie is not enough): the
// current password, and a TOTP code or a passkey (after `auth/passkey/options`) when the account has
// one. Failures are throttled and audited as a sign-in's are.
export function reauthRoutes<A extends AccountBase>(d: ReauthDeps<A>) {
  // The second factor's check; a passkey's challenge is taken first (none: 401 sign_in_step_missing).
  const factorCheck = (req: FastifyRequest<{ Body: Proof }>, account: A): (() => Promise<boolean>) => {
    const { code, passkey } = req.body;
    if (code !== undefined) return () => d.signIn.totpRight(account, code);
    if (passkey === undefined) return async () => false;
    const challenge = takeChallenge(req);
    const rp = requestRelyingParty(d.serviceName, d.consoleUrl, req);
    return async () => (await d.passkeys.authenticate(account, passkey, challenge, rp)) !== null;
  };

  return async function register(app: FastifyInstance): Promise<void> {
    app.post<{ Body: Proof }>(
      `${d.realm.prefix}/auth/reauthenticate`,
      { schema: d.realm.schemas.auth.reauthenticate, config: d.realm.open },
      async (req) => {
        const account = await pendingStep(d, req, ['signed_in']);
        const attempt = attemptOf(req, d.realm);
        await d.signIn.currentPassword(account, req.body.current_password, attempt, 'reauthenticate');
        const hasFactor = account.totp !== null || account.passkey_ids.length > 0;
        const check = hasFactor ? factorCheck(req, account) : null;
        const right = async () => ({ right: await check!(), account });
        if (check && !(await d.signIn.checked(account.email, attempt, 'reauthenticate_factor', right)))
          throw new ApiError('second_factor_invalid');
        req.session.proven_until = d.clock.now().getTime() + PROOF_MS;
        return sessionView(req, d.realm);
      },
    );
  };
}
