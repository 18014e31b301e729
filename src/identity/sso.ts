// Single sign-on with an OpenID Provider: authorization code flow with PKCE (S256), state and nonce,
// through openid-client (OpenID Certified), so issuer, audience, expiry, nonce and signature checks are
// the library's, not ours. This module starts a sign-in and finishes it; keeping the pending sign-in
// (one use, server side) and turning the identity into an account is the caller's job.
import { timingSafeEqual } from 'node:crypto';
import * as oidc from 'openid-client';
import { ConfigError } from '../shared/config';
import type { Role } from './roles';
import { isLoopbackHttp, roleFromClaims, type SsoConfig } from '../shared/config/sso-config';

// A sign-in started longer ago than this is refused: the provider's code lives about a minute, and a
// pending sign-in lying around longer is more likely a replayed callback than a slow user.
export const PENDING_MAX_AGE_MS = 10 * 60_000;

// What the caller keeps (server side) between start() and finish(). Never sent to the browser.
export interface SsoPending {
  state: string;
  nonce: string;
  codeVerifier: string;
  createdAt: number;
}

export interface SsoIdentity {
  issuer: string;
  subject: string;
  // null when the provider sends none or says it is not verified (so it cannot link an account).
  email: string | null;
  name: string | null;
  role: Role | null;
  // How the provider says it authenticated the person (the ID token's amr and acr).
  authentication: { amr: readonly string[]; acr: string | null };
}

export type SsoFailure =
  | 'state_mismatch' // the callback is not the answer to this pending sign-in
  | 'issuer_mismatch' // the callback names another provider (RFC 9207 iss parameter)
  | 'nonce_mismatch' // the ID token was issued for another sign-in
  | 'id_token_invalid' // the token answer did not validate (issuer, audience, expiry, signature)
  | 'provider_error' // the provider answered with an error (access_denied, ...)
  | 'expired' // the pending sign-in is too old
  | 'exchange_failed' // the code was refused (reused, expired, wrong verifier) or the provider unreachable
  | 'discovery_failed'; // the provider's metadata could not be read

// A stable reason for logs and the sign-in page; the message never carries a code or a token.
export class SsoError extends Error {
  constructor(
    readonly reason: SsoFailure,
    detail?: string,
  ) {
    super(`single sign-on failed: ${reason}${detail ? ` (${detail})` : ''}`);
    this.name = 'SsoError';
  }
}

export interface SsoOptions {
  // Plain http to the provider: only with this set and only on a loopback host (a local provider).
  allowHttp?: boolean;
  now?: () => number;
  // Another fetch for every request to the provider (an egress proxy; tests that alter its answers).
  fetch?: oidc.CustomFetch;
}

export class SingleSignOn {
  private constructor(
    private readonly cfg: SsoConfig,
    private readonly client: oidc.Configuration,
    private readonly now: () => number,
  ) {}

  static async discover(cfg: SsoConfig, opts: SsoOptions = {}): Promise<SingleSignOn> {
    const issuer = new URL(cfg.issuer);
    const insecure = issuer.protocol === 'http:';
    if (insecure && !(opts.allowHttp && isLoopbackHttp(issuer))) {
      throw new ConfigError('SSO_ISSUER', 'is plain http; allowed only for a loopback provider in development');
    }
    const auth = cfg.clientSecret === null ? oidc.None() : oidc.ClientSecretBasic(cfg.clientSecret);
    // Non-repudiation: openid-client otherwise trusts the TLS channel for the ID token's signature.
    const execute = [oidc.enableNonRepudiationChecks, ...(insecure ? [oidc.allowInsecureRequests] : [])];
    try {
      const client = await oidc.discovery(issuer, cfg.clientId, undefined, auth, {
        execute,
        timeout: 10,
        ...(opts.fetch ? { [oidc.customFetch]: opts.fetch } : {}),
      });
      return new SingleSignOn(cfg, client, opts.now ?? Date.now);
    } catch (err) {
      throw new SsoError('discovery_failed', errorCode(err));
    }
  }

  async start(): Promise<{ url: string; pending: SsoPending }> {
    const pending: SsoPending = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      codeVerifier: oidc.randomPKCECodeVerifier(),
      createdAt: this.now(),
    };
    const url = oidc.buildAuthorizationUrl(this.client, {
      redirect_uri: this.cfg.redirectUrl,
      scope: this.cfg.scopes.join(' '),
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href, pending };
  }

  // callbackUrl: the URL the browser came back on; only its query is read, the redirect URL is the
  // configured one (behind a proxy the request's own host and scheme may differ from it).
  async finish(callbackUrl: URL, pending: SsoPending): Promise<SsoIdentity> {
    if (!(this.now() - pending.createdAt <= PENDING_MAX_AGE_MS)) throw new SsoError('expired');
    const params = callbackUrl.searchParams;
    if (!sameString(params.get('state'), pending.state)) throw new SsoError('state_mismatch');
    this.checkIssuerParameter(params.get('iss'));
    const error = params.get('error');
    if (error !== null) throw new SsoError('provider_error', safeCode(error));

    const current = new URL(this.cfg.redirectUrl);
    current.search = params.toString();
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(this.client, current, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
    } catch (err) {
      throw classify(err);
    }
    const idClaims = tokens.claims();
    if (!idClaims) throw new SsoError('id_token_invalid');
    let claims: Record<string, unknown> = idClaims;
    if (idClaims[this.cfg.roleClaim] === undefined) {
      // Many providers put scope claims (groups among them) only in userinfo, as the spec has it.
      try {
        const info = await oidc.fetchUserInfo(this.client, tokens.access_token, idClaims.sub);
        claims = { ...info, ...idClaims };
      } catch (err) {
        throw new SsoError('exchange_failed', `userinfo ${errorCode(err)}`);
      }
    }
    return {
      issuer: idClaims.iss,
      subject: idClaims.sub,
      // An email the provider does not say it verified is not taken (a missing email_verified included).
      email: typeof claims.email === 'string' && claims.email_verified === true ? claims.email : null,
      name: typeof claims.name === 'string' ? claims.name : null,
      role: roleFromClaims(claims, this.cfg),
      authentication: {
        amr: Array.isArray(idClaims.amr) ? idClaims.amr.filter((m): m is string => typeof m === 'string') : [],
        acr: typeof idClaims.acr === 'string' ? idClaims.acr : null,
      },
    };
  }

  // RFC 9207: a provider that says it sends `iss` must, and it must be its own (a mix-up defence).
  private checkIssuerParameter(iss: string | null): void {
    const metadata = this.client.serverMetadata();
    if (iss === null ? metadata.authorization_response_iss_parameter_supported === true : iss !== metadata.issuer) {
      throw new SsoError('issuer_mismatch');
    }
  }
}

function sameString(a: string | null, b: string): boolean {
  if (a === null) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

// An OAuth error code is a short token; anything else from the callback is not echoed.
function safeCode(code: string): string {
  return /^[\w.-]{1,64}$/.test(code) ? code : 'unrecognised';
}

function errorCode(err: unknown): string {
  if (err instanceof oidc.ResponseBodyError) return safeCode(err.error);
  if (err instanceof oidc.ClientError && err.code) return err.code;
  return err instanceof Error ? err.name : 'unknown';
}

// openid-client's failures by their codes (never by message); which check failed decides the reason.
function classify(err: unknown): SsoError {
  if (err instanceof oidc.AuthorizationResponseError) return new SsoError('provider_error', safeCode(err.error));
  if (err instanceof oidc.ResponseBodyError || err instanceof oidc.WWWAuthenticateChallengeError) {
    return new SsoError('exchange_failed', errorCode(err));
  }
  if (err instanceof oidc.ClientError) {
    switch (err.code) {
      case 'OAUTH_JWT_CLAIM_COMPARISON_FAILED':
        return new SsoError(comparedClaim(err) === 'nonce' ? 'nonce_mismatch' : 'id_token_invalid', comparedClaim(err));
      case 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED':
      case 'OAUTH_KEY_SELECTION_FAILED':
      case 'OAUTH_INVALID_RESPONSE':
      case 'OAUTH_PARSE_ERROR':
      case 'OAUTH_UNSUPPORTED_OPERATION':
        return new SsoError('id_token_invalid', err.code);
    }
  }
  return new SsoError('exchange_failed', errorCode(err));
}

// The claim a failed comparison was about: openid-client's error wraps oauth4webapi's, whose cause names it.
function comparedClaim(err: Error): string | undefined {
  const claim = (err.cause as { cause?: { claim?: unknown } } | undefined)?.cause?.claim;
  return typeof claim === 'string' ? claim : undefined;
}
