import { ConfigError } from '../../src/shared/config';
import {
  assuranceMet,
  parseRoleMap,
  parseSsoConfig,
  roleFromClaims,
  type SsoEnv,
} from '../../src/shared/config/sso-config';

const base: SsoEnv = {
  SSO_ISSUER: 'https://login.example.com/tenant',
  SSO_CLIENT_ID: 'lead-intake',
  SSO_CLIENT_SECRET: 's3cret',
  SSO_REDIRECT_URL: 'https://leads.example.com/manager/sso/callback',
};

function refusal(env: SsoEnv): ConfigError {
  try {
    parseSsoConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('parseSsoConfig', () => {
  it('is off (null) without an issuer', () => {
    expect(parseSsoConfig({})).toBeNull();
    expect(parseSsoConfig({ SSO_ISSUER: '  ', SSO_CLIENT_ID: 'x' })).toBeNull();
  });

  it('reads a complete setting, with default scopes and role claim', () => {
    const cfg = parseSsoConfig({ ...base, SSO_ROLE_MAP: 'lead-owners=owner, lead-admins=admin,analysts=analyst' });
    expect(cfg).toEqual({
      issuer: 'https://login.example.com/tenant',
      clientId: 'lead-intake',
      clientSecret: 's3cret',
      redirectUrl: 'https://leads.example.com/manager/sso/callback',
      scopes: ['openid', 'email', 'profile'],
      roleClaim: 'groups',
      roleMap: [
        { value: 'lead-owners', role: 'owner' },
        { value: 'lead-admins', role: 'admin' },
        { value: 'analysts', role: 'analyst' },
      ],
      privilegedAmr: [],
      privilegedAcr: [],
    });
    expect(Object.isFrozen(cfg)).toBe(true);
  });

  it('asks owners and admins, and only them, for the authentication SSO_PRIVILEGED_AMR and _ACR name', () => {
    const cfg = parseSsoConfig({ ...base, SSO_PRIVILEGED_AMR: 'mfa, hwk', SSO_PRIVILEGED_ACR: 'gold' })!;
    expect([cfg.privilegedAmr, cfg.privilegedAcr]).toEqual([['mfa', 'hwk'], ['gold']]);
    const strong = { amr: ['pwd', 'hwk'], acr: 'gold' };
    expect(assuranceMet(strong, 'owner', cfg)).toBe(true);
    expect(assuranceMet({ ...strong, acr: 'silver' }, 'admin', cfg)).toBe(false);
    expect(assuranceMet({ amr: ['pwd'], acr: 'gold' }, 'owner', cfg)).toBe(false);
    expect(assuranceMet({ amr: [], acr: null }, 'analyst', cfg)).toBe(true);
    expect(assuranceMet({ amr: [], acr: null }, 'owner', { privilegedAmr: [], privilegedAcr: [] })).toBe(true);
  });

  it('takes scopes, a role claim, and no secret (a public client)', () => {
    const cfg = parseSsoConfig({
      ...base,
      SSO_CLIENT_SECRET: undefined,
      SSO_SCOPES: 'openid groups',
      SSO_ROLE_CLAIM: 'roles',
    });
    expect(cfg).toMatchObject({ clientSecret: null, scopes: ['openid', 'groups'], roleClaim: 'roles', roleMap: [] });
  });

  it('accepts plain http only on a loopback host', () => {
    for (const issuer of ['http://127.0.0.1:4000', 'http://localhost:4000/', 'http://[::1]:4000']) {
      expect(parseSsoConfig({ ...base, SSO_ISSUER: issuer })?.issuer).toBe(issuer);
    }
    for (const issuer of ['http://login.example.com', 'http://10.0.0.5', 'ftp://127.0.0.1', 'login.example.com']) {
      expect(refusal({ ...base, SSO_ISSUER: issuer }).variable).toBe('SSO_ISSUER');
    }
  });

  it('refuses a partial setting, naming what is missing', () => {
    expect(refusal({ ...base, SSO_CLIENT_ID: undefined }).variable).toBe('SSO_CLIENT_ID');
    expect(refusal({ ...base, SSO_REDIRECT_URL: '' }).variable).toBe('SSO_REDIRECT_URL');
  });

  it('refuses a relative or plain-http redirect URL and scopes without openid', () => {
    expect(refusal({ ...base, SSO_REDIRECT_URL: '/manager/sso/callback' }).variable).toBe('SSO_REDIRECT_URL');
    expect(refusal({ ...base, SSO_REDIRECT_URL: 'http://leads.example.com/cb' }).variable).toBe('SSO_REDIRECT_URL');
    expect(refusal({ ...base, SSO_SCOPES: 'email profile' }).variable).toBe('SSO_SCOPES');
  });

  it('refuses a role map entry that is not value=role or names an unknown role', () => {
    for (const map of ['lead-owners', 'lead-owners=', '=owner', 'lead-owners=superuser', 'a=owner,b=root']) {
      const err = refusal({ ...base, SSO_ROLE_MAP: map });
      expect(err.variable).toBe('SSO_ROLE_MAP');
    }
  });

  it('never puts the client secret in an error message', () => {
    expect(refusal({ ...base, SSO_ROLE_MAP: 'x=nobody' }).message).not.toContain('s3cret');
  });
});

describe('roleFromClaims', () => {
  const cfg = {
    roleClaim: 'groups',
    roleMap: parseRoleMap('analysts=analyst,lead-owners=owner,lead-admins=admin,helpdesk=support'),
  };

  it('maps a single string claim', () => {
    expect(roleFromClaims({ groups: 'helpdesk' }, cfg)).toBe('support');
  });

  it('takes the most powerful role when several groups match, whatever their order', () => {
    expect(roleFromClaims({ groups: ['analysts', 'lead-admins', 'staff'] }, cfg)).toBe('admin');
    expect(roleFromClaims({ groups: ['lead-admins', 'lead-owners'] }, cfg)).toBe('owner');
  });

  it('gives null when nothing matches, the claim is missing, or it is not a string', () => {
    expect(roleFromClaims({ groups: ['staff'] }, cfg)).toBeNull();
    expect(roleFromClaims({}, cfg)).toBeNull();
    expect(roleFromClaims({ groups: [{ name: 'lead-owners' }, 7, null] }, cfg)).toBeNull();
    expect(roleFromClaims({ groups: 'Lead-Owners' }, cfg)).toBeNull(); // exact match only
  });

  it('reads the configured claim only', () => {
    expect(roleFromClaims({ groups: ['staff'], roles: ['lead-owners'] }, cfg)).toBeNull();
    expect(roleFromClaims({ roles: ['lead-owners'] }, { ...cfg, roleClaim: 'roles' })).toBe('owner');
  });

  it('gives the same value twice to the most powerful of its roles', () => {
    const twice = { roleClaim: 'groups', roleMap: parseRoleMap('staff=agent,staff=supervisor') };
    expect(roleFromClaims({ groups: ['staff'] }, twice)).toBe('supervisor');
  });
});
