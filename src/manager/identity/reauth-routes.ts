import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../shared/errors';
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
  const factorRight = async (req: FastifyRequest<{ Body: Proof }>, account: A): Promise<boolean> => {
    const { code, passkey } = req.body;
    if (code !== undefined) return d.signIn.totpRight(account, code);
    if (passkey === undefined) return false;
    const rp = requestRelyingParty(d.serviceName, d.consoleUrl, req);
    return (await d.passkeys.authenticate(account, passkey, takeChallenge(req), rp)) !== null;
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
        if (hasFactor && !(await factorRight(req, account))) {
          await d.signIn.failed(account.email, attempt, account, 'reauthenticate_factor');
          throw new ApiError('second_factor_invalid');
        }
        req.session.proven_until = d.clock.now().getTime() + PROOF_MS;
        return sessionView(req, d.realm);
      },
    );
  };
}
