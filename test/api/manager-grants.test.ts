import { ROLES, ROLE_PERMISSIONS, type Role } from '../../src/identity/roles';
import { ManagerClient } from '../support/manager-client';
import { enrol, invite } from '../support/session-client';
import { startTestApp, type TestApp } from '../support/test-app';

// The grant rule over HTTP: an admin gives (an invitation, a role change, a service token) only a role
// whose permissions it holds itself; the rest is an owner's to give.
let app: TestApp;
let owner: ManagerClient;

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'ingress' });
  owner = new ManagerClient(app.url);
});

afterAll(async () => {
  await app?.destroy();
});

const email = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}@example.com`;
const heldByAdmin = (role: Role) => ROLE_PERMISSIONS[role].every((p) => ROLE_PERMISSIONS.admin.includes(p));

describe('an admin', () => {
  it('mints no token of a role that holds a permission it lacks, such as an auditor', async () => {
    const made = await owner.post<{ token: string }>('/api/service-accounts', {
      name: 'Admin CLI',
      role: 'admin',
      expires_in_days: 1,
    });
    const admin = owner.withToken(made.body.token);
    const auditor = await admin.post('/api/service-accounts', { name: 'Reader', role: 'auditor', expires_in_days: 1 });
    expect(auditor.body).toMatchObject({ error: 'forbidden' });
    expect((await admin.post('/api/service-accounts', { name: 'S', role: 'support', expires_in_days: 1 })).status).toBe(
      201,
    );
  });

  it('invites, and changes to, only roles whose permissions it holds: never a contact-revealing agent', async () => {
    const { client: admin } = await enrol(app.url, await invite(app.url, { email: email('adm'), role: 'admin' }));
    for (const role of ROLES.filter((r) => r !== 'owner' && r !== 'admin')) {
      const answer = await admin.post('/api/accounts', { email: email(role), name: role, role });
      expect([role, answer.status]).toEqual([role, heldByAdmin(role) ? 201 : 403]);
    }
    expect(heldByAdmin('agent') || heldByAdmin('supervisor')).toBe(false);
    const analyst = await invite(app.url, { email: email('an'), role: 'analyst' });
    const raised = await admin.send('PATCH', `/api/accounts/${analyst.id}`, { role: 'supervisor' });
    expect(raised.body).toMatchObject({ error: 'forbidden' });
  });
});
