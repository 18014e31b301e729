import type { FastifyRequest } from 'fastify';
import type { Clock } from '../shared/clock';
import { ApiError } from '../shared/errors';

// What a session holds as proof for its next step: a recent re-authentication, a WebAuthn challenge.

// How long a proof of identity lets a signed-in session add or replace one second factor.
export const PROOF_MS = 5 * 60 * 1000;

// A signed-in session changes its second factors only after a recent proof (reauth-routes.ts); while
// enrolling, the password just given is the proof. The proof is spent by the change it allowed.
export function requireProof(req: FastifyRequest, clock: Clock): void {
  const s = req.session;
  if (s.stage === 'signed_in' && !((s.proven_until ?? 0) > clock.now().getTime()))
    throw new ApiError('reauthentication_required');
}

export function spendProof(req: FastifyRequest): void {
  req.session.proven_until = undefined;
}

// The challenge the options gave this session, taken so it verifies one answer at most.
export function takeChallenge(req: FastifyRequest): string {
  const challenge = req.session.webauthn_challenge;
  req.session.webauthn_challenge = undefined;
  if (!challenge) throw new ApiError('sign_in_step_missing');
  return challenge;
}
