import { ManagerClient } from './manager-client';
import { startTestApp, type TestApp } from './test-app';

// An app serving the manager API (the ingress role) for the tests of one file, with a client holding
// the break-glass token: started before the file's tests, destroyed after them.
export function managerApiApp(): { readonly app: TestApp; readonly manager: ManagerClient } {
  const started = {} as { app: TestApp; manager: ManagerClient };
  beforeAll(async () => {
    started.app = await startTestApp({ ROLE: 'ingress' });
    started.manager = new ManagerClient(started.app.url);
  });
  afterAll(async () => {
    await started.app?.destroy();
  });
  return started;
}
