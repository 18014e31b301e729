// Single sign-on settings, read from SSO_* variables: which OpenID Provider, this service as its client,
// and how the provider's group claim becomes a manager role. Pure, so the rules are unit-tested.
import { ConfigError } from '../errors';
import { isRole, ROLES, type Role } from '../../identity/roles';

export interface SsoConfig {
  issuer: string;
  clientId: string;
  // null: a public client (PKCE only, no client authentication at the token endpoint).
  clientSecret: string | null;
  redirectUrl: string;
  scopes: string[];
  roleClaim: string;
  roleMap: ReadonlyArray<{ value: string; role: Role }>;
  // What an owner's or admin's sign-in must show of how the provider authenticated them: one of these `amr`
  // values (e.g. mfa, hwk), and an `acr` among these; empty: no requirement.
  privilegedAmr: readonly string[];
  privilegedAcr: readonly string[];
}

export interface SsoEnv {
  SSO_ISSUER?: string;
  SSO_CLIENT_ID?: string;
  SSO_CLIENT_SECRET?: string;
  SSO_REDIRECT_URL?: string;
  SSO_SCOPES?: string;
  SSO_ROLE_CLAIM?: string;
  SSO_ROLE_MAP?: string;
  SSO_PRIVILEGED_AMR?: string;
  SSO_PRIVILEGED_ACR?: string;
}

const DEFAULT_SCOPES = ['openid', 'email', 'profile'];
const DEFAULT_ROLE_CLAIM = 'groups';
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

// Plain http only on this machine (a provider a developer or a test runs); anywhere else tokens and
// codes would cross the network in the clear.
export function isLoopbackHttp(url: URL): boolean {
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

// null when SSO_ISSUER is unset (single sign-on off); a ConfigError for a partial or bad setting.
export function parseSsoConfig(env: SsoEnv): SsoConfig | null {
  const issuer = value(env.SSO_ISSUER);
  if (issuer === null) return null;
  const clientId = value(env.SSO_CLIENT_ID);
  if (clientId === null) throw new ConfigError('SSO_CLIENT_ID', 'is required when SSO_ISSUER is set');
  const redirect = value(env.SSO_REDIRECT_URL);
  if (redirect === null) throw new ConfigError('SSO_REDIRECT_URL', 'is required when SSO_ISSUER is set');
  const scopes =
    value(env.SSO_SCOPES)
      ?.split(/[\s,]+/)
      .filter(Boolean) ?? DEFAULT_SCOPES;
  if (!scopes.includes('openid')) throw new ConfigError('SSO_SCOPES', 'must include openid');
  const config: SsoConfig = {
    issuer: issuerUrl(issuer),
    clientId,
    clientSecret: value(env.SSO_CLIENT_SECRET),
    redirectUrl: redirectUrl(redirect),
    scopes,
    roleClaim: value(env.SSO_ROLE_CLAIM) ?? DEFAULT_ROLE_CLAIM,
    roleMap: parseRoleMap(value(env.SSO_ROLE_MAP) ?? ''),
    privilegedAmr: list(env.SSO_PRIVILEGED_AMR),
    privilegedAcr: list(env.SSO_PRIVILEGED_ACR),
  };
  return Object.freeze({
    ...config,
    scopes: Object.freeze(scopes) as string[],
    roleMap: Object.freeze(config.roleMap),
  });
}

function list(raw: string | undefined): string[] {
  return (value(raw) ?? '').split(/[\s,]+/).filter(Boolean);
}

function value(raw: string | undefined): string | null {
  const trimmed = raw?.trim();
  return trimmed ? trimmed : null;
}

function issuerUrl(raw: string): string {
  const url = absoluteUrl('SSO_ISSUER', raw);
  if (url.protocol !== 'https:' && !isLoopbackHttp(url)) {
    throw new ConfigError('SSO_ISSUER', 'must be an https URL (http only on 127.0.0.1, localhost or [::1])');
  }
  if (url.search || url.hash) throw new ConfigError('SSO_ISSUER', 'must have no query or fragment');
  // The issuer is compared as a string with the provider's own `iss`: keep it as written.
  return raw;
}

function redirectUrl(raw: string): string {
  const url = absoluteUrl('SSO_REDIRECT_URL', raw);
  if (url.protocol !== 'https:' && !isLoopbackHttp(url)) {
    throw new ConfigError('SSO_REDIRECT_URL', 'must be an https URL (http only on 127.0.0.1, localhost or [::1])');
  }
  if (url.hash) throw new ConfigError('SSO_REDIRECT_URL', 'must have no fragment');
  return url.href;
}

function absoluteUrl(variable: string, raw: string): URL {
  try {
    return new URL(raw);
  } catch {
    throw new ConfigError(variable, 'must be an absolute URL');
  }
}

// "lead-owners=owner,lead-admins=admin": claim value, then the role it gives.
export function parseRoleMap(raw: string): Array<{ value: string; role: Role }> {
  const entries: Array<{ value: string; role: Role }> = [];
  for (const part of raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const at = part.lastIndexOf('=');
    const claimValue = at > 0 ? part.slice(0, at).trim() : '';
    const role = at > 0 ? part.slice(at + 1).trim() : '';
    if (!claimValue || !role) throw new ConfigError('SSO_ROLE_MAP', `entry "${part}" is not value=role`);
    if (!isRole(role))
      throw new ConfigError('SSO_ROLE_MAP', `entry "${part}" names an unknown role (one of ${ROLES.join(', ')})`);
    entries.push({ value: claimValue, role });
  }
  return entries;
}

// The role a sign-in gets from its claims: of the map's entries the claim matches, the most powerful
// (earliest in ROLES); null when none matches, so the account is not given a role it was never mapped to.
export function roleFromClaims(
  claims: Record<string, unknown>,
  cfg: Pick<SsoConfig, 'roleClaim' | 'roleMap'>,
): Role | null {
  const raw = claims[cfg.roleClaim];
  const values = new Set((Array.isArray(raw) ? raw : [raw]).filter((v): v is string => typeof v === 'string'));
  let best: Role | null = null;
  for (const { value: mapped, role } of cfg.roleMap) {
    if (values.has(mapped) && (best === null || ROLES.indexOf(role) < ROLES.indexOf(best))) best = role;
  }
  return best;
}

// The roles whose sign-ins must meet SSO_PRIVILEGED_AMR and SSO_PRIVILEGED_ACR.
const PRIVILEGED: readonly Role[] = ['owner', 'admin'];

// Whether a sign-in shows the assurance its role needs: any role but owner and admin needs none; those need an
// `amr` value of the list (when one is set) and an `acr` of the list (when one is set).
export function assuranceMet(
  authn: { amr: readonly string[]; acr: string | null },
  role: Role,
  cfg: Pick<SsoConfig, 'privilegedAmr' | 'privilegedAcr'>,
): boolean {
  if (!PRIVILEGED.includes(role)) return true;
  const amrMet = cfg.privilegedAmr.length === 0 || authn.amr.some((m) => cfg.privilegedAmr.includes(m));
  const acrMet = cfg.privilegedAcr.length === 0 || (authn.acr !== null && cfg.privilegedAcr.includes(authn.acr));
  return amrMet && acrMet;
}
