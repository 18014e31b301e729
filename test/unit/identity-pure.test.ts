import type { Session } from 'fastify';
import { managerRealm } from '../../src/identity/manager-realm';
import { portalRealm } from '../../src/identity/portal-realm';
import { inScope, ownPartner } from '../../src/identity/principal';
import { isCommonPassword } from '../../src/identity/common-passwords';
import { passwordProblem } from '../../src/identity/passwords';
import { newTotpSecret, totpCode, totpStep, totpUri } from '../../src/identity/totp';
import { can, mayGrant, PARTNER_SCOPED_ROLES, ROLE_PERMISSIONS, ROLES } from '../../src/identity/roles';

describe('passwords', () => {
  it('asks only for 12 to 256 characters, counted as characters, with no composition rules', () => {
    expect(passwordProblem('short')).toMatch(/at least 12/);
    expect(passwordProblem('all lower case words')).toBeNull();
    expect(passwordProblem('😀😁😂🤣😃😄😅😆😉😊😋😎')).toBeNull();
    expect(passwordProblem('x'.repeat(257))).toMatch(/at most 256/);
  });
});

describe('common passwords', () => {
  it('refuses one on the list whatever its case, with digits or symbols after it, or repeated', () => {
    for (const common of ['1qaz2wsx3edc', 'PASSWORD123456', 'Iloveyou!!!!!!', 'passwordpassword', 'abcabcabcabc'])
      expect([common, passwordProblem(common)]).toEqual([common, expect.stringMatching(/most common/)]);
    for (const fine of ['correct horse battery staple', 'Tr0ub4dor&3 stapled', 'a long enough password'])
      expect([fine, isCommonPassword(fine)]).toEqual([fine, false]);
  });

  it('ships the 10,000 most common', () => {
    expect(isCommonPassword('123456', new Set())).toBe(false);
    expect(['123456', 'password', 'dragon'].every((p) => isCommonPassword(p))).toBe(true);
  });
});

describe('TOTP', () => {
  const secret = newTotpSecret();
  const now = Date.UTC(2026, 10, 27, 12, 0, 0);

  it('accepts the code of this step and of one step either side, and no other', () => {
    const step = Math.floor(now / 30000);
    expect(totpStep(secret, totpCode(secret, now), null, now)).toBe(step);
    expect(totpStep(secret, totpCode(secret, now - 30000), null, now)).toBe(step - 1);
    expect(totpStep(secret, totpCode(secret, now + 30000), null, now)).toBe(step + 1);
    expect(totpStep(secret, totpCode(secret, now + 90000), null, now)).toBeNull();
    expect(totpStep(secret, 'abcdef', null, now)).toBeNull();
  });

  it('refuses a code of a step at or before the last one used (a replay)', () => {
    const step = Math.floor(now / 30000);
    expect(totpStep(secret, totpCode(secret, now), step, now)).toBeNull();
    expect(totpStep(secret, totpCode(secret, now - 30000), step - 1, now)).toBeNull();
    expect(totpStep(secret, totpCode(secret, now), step - 1, now)).toBe(step);
  });

  it('gives an otpauth URI with the issuer and the account', () => {
    expect(totpUri(secret, 'ann@example.com', 'LeadIntake')).toMatch(
      /^otpauth:\/\/totp\/LeadIntake:ann%40example\.com\?.*secret=/,
    );
  });
});

describe('roles', () => {
  it('gives the owner everything and the agent nothing in the manager API', () => {
    expect(can('owner', 'accounts.manage')).toBe(true);
    expect(can('owner', 'audit.read')).toBe(true);
    expect(can('agent', 'leads.read')).toBe(false);
  });

  it('keeps secrets, settings and erasure from support, and every change from analysts and auditors', () => {
    for (const p of ['partners.secrets', 'partners.settings', 'leads.erase'] as const)
      expect(can('support', p)).toBe(false);
    for (const p of ['partners.settings', 'deliveries.retry', 'agents.write', 'leads.erase'] as const) {
      expect(can('analyst', p)).toBe(false);
      expect(can('auditor', p)).toBe(false);
    }
    expect(can('auditor', 'audit.read')).toBe(true);
    expect(PARTNER_SCOPED_ROLES).toEqual(['affiliate_manager']);
  });

  it('lets only an owner make or change owners and admins', () => {
    for (const target of ROLES) expect(mayGrant('owner', target)).toBe(true);
    expect(mayGrant('admin', 'owner')).toBe(false);
    expect(mayGrant('admin', 'admin')).toBe(false);
    expect(mayGrant('admin', 'support')).toBe(true);
    expect(mayGrant('admin', 'analyst')).toBe(true);
    for (const actor of ROLES.filter((r) => r !== 'owner' && r !== 'admin'))
      expect(mayGrant(actor, 'agent')).toBe(false);
  });

  it('lets an admin grant only a role whose permissions it holds, the rest only an owner', () => {
    for (const target of ['auditor', 'affiliate_manager', 'supervisor', 'agent'] as const)
      expect(mayGrant('admin', target)).toBe(false);
    for (const target of ROLES.filter((r) => r !== 'owner' && r !== 'admin'))
      expect(mayGrant('admin', target)).toBe(ROLE_PERMISSIONS[target].every((p) => can('admin', p)));
  });
});

describe('principals', () => {
  const signedIn = { stage: 'signed_in', account_id: 'ac-1', name: 'Ana', method: 'password' } as const;
  const portal = portalRealm(async () => ({ name: 'Partner', disabled: false }));

  it("carry their realm, and a partner's person sees their own partner alone", () => {
    const person = portal.principal(
      { ...signedIn, realm: 'portal', portal_role: 'partner_viewer', partner_id: 'pa-1' } as Session,
      '10.0.0.1',
    );
    expect(person).toMatchObject({
      realm: 'portal',
      kind: 'account',
      role: 'partner_viewer',
      partnerId: 'pa-1',
      agentId: null,
    });
    expect([inScope(person!, 'pa-1'), inScope(person!, 'pa-2'), ownPartner(person!)]).toEqual([true, false, 'pa-1']);
    const manager = managerRealm.principal(
      { ...signedIn, role: 'affiliate_manager', partner_ids: ['pa-2'] } as Session,
      '10.0.0.1',
    );
    expect(manager).toMatchObject({ realm: 'manager', kind: 'account', role: 'affiliate_manager', agentId: null });
    expect([inScope(manager!, 'pa-1'), inScope(manager!, 'pa-2'), ownPartner(manager!)]).toEqual([false, true, null]);
  });

  it("are none for a session without its realm's rights", () => {
    expect(portal.principal({ ...signedIn, role: 'owner' } as Session, '10.0.0.1')).toBeNull();
    expect(
      managerRealm.principal({ ...signedIn, portal_role: 'partner_admin', partner_id: 'pa-1' } as Session, '10.0.0.1'),
    ).toBeNull();
  });
});
