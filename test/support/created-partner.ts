import type { ManagerClient } from './manager-client';

// A partner as POST /api/affiliates answers it: its settings and the three secrets, shown once.
export type Created = { id: string; api_key: string; hmac_secret: string; callback_secret: string } & Record<
  string,
  unknown
>;

export async function createPartnerVia(
  manager: ManagerClient,
  body: Record<string, unknown> = { name: 'Acme' },
): Promise<Created> {
  const res = await manager.post<Created>('/api/affiliates', body);
  expect(res.status).toBe(201);
  return res.body;
}
