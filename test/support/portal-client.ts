import type { PortalRole } from '../../src/identity/portal-roles';
import { totpCode } from '../../src/identity/totp';
import type { HttpResult } from './partner-client';
import { expectStatus, SessionClient } from './session-client';
import { MANAGER_TOKEN } from './test-config';

// A partner's person's browser on the portal API (/portal/api): it keeps the lit_portal cookie and
// the CSRF token the last answer gave, and sends both the way the portal's pages do.
export class PortalClient extends SessionClient {
  constructor(baseUrl: string) {
    super(baseUrl, 'lit_portal');
  }
}

export interface PortalPerson {
  id: string;
  email: string;
  role: PortalRole;
  partnerId: string;
  password: string;
  // The TOTP secret the person enrolled (for signing in again: use a code of a later step).
  secret: string;
  client: PortalClient;
}

export const PORTAL_PASSWORD = 'partner portal passphrase';
const unique = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}@partner.example`;

// An invitation's answer: the new person and the one-time link's token.
export interface PortalInvitation {
  user: { id: string; email: string; role: PortalRole; partner_id: string };
  link: { token: string; path: string; url: string; expires_at: string };
}

// A partner's first admin invited by a manager (the break-glass token unless a manager's client is given).
export async function inviteFirstAdmin(
  baseUrl: string,
  partnerId: string,
  person: { email?: string; name?: string } = {},
  manager?: SessionClient,
): Promise<PortalInvitation> {
  const email = person.email ?? unique('admin');
  const body = { email, name: person.name ?? email.split('@')[0] };
  const path = `/api/affiliates/${partnerId}/portal-invitations`;
  const res = manager
    ? await manager.post<PortalInvitation>(path, body)
    : await send<PortalInvitation>(baseUrl, path, body);
  if (res.status !== 201) throw new Error(`portal invitation answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

// An invited person sets a password and TOTP through the link: a signed-in portal session.
export async function enrolPortal(
  baseUrl: string,
  invited: PortalInvitation,
  password = PORTAL_PASSWORD,
): Promise<PortalPerson> {
  const client = new PortalClient(baseUrl);
  await expectStatus(client.post(`/portal/api/auth/links/use`, { token: invited.link.token, password }), 200);
  const setup = await expectStatus(client.post<{ secret: string }>('/portal/api/auth/totp/setup'), 200);
  await expectStatus(
    client.post('/portal/api/auth/totp/confirm', { code: totpCode(setup.body.secret, Date.now()) }),
    200,
  );
  const { user } = invited;
  return {
    id: user.id,
    email: user.email,
    role: user.role,
    partnerId: user.partner_id,
    password,
    secret: setup.body.secret,
    client,
  };
}

// A signed-in portal session for `partnerId` with `role`: a first admin invited by a manager; for a
// viewer (or a second admin), invited in turn by that admin (or by the admin given).
export async function portalSession(
  baseUrl: string,
  partnerId: string,
  role: PortalRole = 'partner_admin',
  admin?: PortalPerson,
): Promise<PortalPerson> {
  if (role === 'partner_admin' && !admin) return enrolPortal(baseUrl, await inviteFirstAdmin(baseUrl, partnerId));
  const by = admin ?? (await portalSession(baseUrl, partnerId, 'partner_admin'));
  const email = unique(role);
  const invited = await expectStatus(
    by.client.post<PortalInvitation>('/portal/api/users', { email, name: email.split('@')[0], role }),
    201,
  );
  return enrolPortal(baseUrl, invited.body);
}

// Another session of an enrolled person: the password, then a TOTP code of a step not used yet.
export async function portalSignIn(
  baseUrl: string,
  person: Pick<PortalPerson, 'email' | 'password' | 'secret'>,
  stepsAhead = 1,
): Promise<PortalClient> {
  const client = new PortalClient(baseUrl);
  await expectStatus(client.post('/portal/api/auth/sign-in', { email: person.email, password: person.password }), 200);
  await expectStatus(
    client.post('/portal/api/auth/totp', { code: totpCode(person.secret, Date.now() + stepsAhead * 30_000) }),
    200,
  );
  return client;
}

async function send<T>(baseUrl: string, path: string, body: unknown): Promise<HttpResult<T>> {
  const res = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${MANAGER_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as T };
}
