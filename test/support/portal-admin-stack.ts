import { CallbackReceiver, status } from './callback-receiver';
import { ManagerClient } from './manager-client';
import { receivingPartner, type FedPartner } from './portal-data';
import { enrolPortal, inviteFirstAdmin, type PortalPerson } from './portal-client';
import { startTestApp, type TestApp } from './test-app';

export const ADMIN_NAME = 'Ada Admin';

export interface PortalAdminStack {
  app: TestApp;
  manager: ManagerClient;
  receiver: CallbackReceiver;
  agentId: string; // an agent for GB, so the leads sent are assigned
  acme: FedPartner; // blocks FR; its callback endpoint answers 404 until a test says otherwise
  admin: PortalPerson; // the partner's first admin, named ADMIN_NAME, signed in to the portal
}

// The whole pipeline with a partner and its portal admin, for the tests of the portal's data.
export async function startPortalAdminStack(): Promise<PortalAdminStack> {
  const app = await startTestApp({ ROLE: 'all', CALLBACK_RETRY_DELAYS_S: '1,1,1,1' });
  const manager = new ManagerClient(app.url);
  const receiver = await new CallbackReceiver().start();
  const agentId = (await manager.post<{ id: string }>('/api/agents', { name: 'Portal agent', countries: ['GB'] })).body
    .id;
  const acme = await receivingPartner(manager, receiver, 'acme', status(404, 'no such hook'), {
    blocked_countries: ['FR'],
  });
  const admin = await enrolPortal(app.url, await inviteFirstAdmin(app.url, acme.id, { name: ADMIN_NAME }));
  return { app, manager, receiver, agentId, acme, admin };
}

export type Page<T = Record<string, unknown>> = { items: T[]; next_cursor: string | null };
export type AuditItem = {
  action: string;
  actor: string;
  actor_name: string;
  affiliate_id: string;
  target: string | null;
  details: Record<string, unknown>;
};

// The manager's audit entries of one action on the partner, newest first.
export const auditEntries = async (manager: ManagerClient, partnerId: string, action: string) =>
  (await manager.get<Page<AuditItem>>(`/api/audit-log?affiliate_id=${partnerId}&action=${action}&limit=200`)).body
    .items;

// The last hour as a list's query string (an export needs a range).
export const lastHour = () => `?from=${new Date(Date.now() - 3_600_000).toISOString()}&to=${new Date().toISOString()}`;
