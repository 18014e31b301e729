import type { CallbackReceiver, ReceivedCallback } from './callback-receiver';
import type { ManagerClient } from './manager-client';

// The app of the postback tests: the manager API and the dispatcher, retry tiers of 1, 2, 3 and 4 s.
export const POSTBACK_APP = {
  ROLE: 'ingress,dispatcher',
  SERVICE_NAME: 'Acme',
  CALLBACK_RETRY_DELAYS_S: '1,2,3,4',
  CALLBACK_TIMEOUT_MS: '1000',
};
export const TOKEN = 'tr&ck/er=1';

// A partner created through the manager API with these postback settings, its tracker played by
// the test's receiver at `path`; its id.
export async function trackerPartner(
  manager: ManagerClient,
  receiver: CallbackReceiver,
  path: string,
  postbacks: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const res = await manager.post<{ id: string; callback_secret: string }>('/api/affiliates', {
    name: path,
    postbacks,
    ...extra,
  });
  expect(res.status).toBe(201);
  receiver.route(path, res.body.callback_secret);
  return res.body.id;
}

// The query of the URL a postback was sent to.
export const query = (got: ReceivedCallback) => new URL(got.url, 'http://x').searchParams;
