import { connect } from 'node:net';
import { createPartnerVia } from '../support/created-partner';
import { managerApiApp } from '../support/manager-api-app';
import { MANAGER_TOKEN } from '../support/test-config';

// The manager API's HTTP conventions over a real socket: an action endpoint called with a JSON
// content type and no body, and the OpenAPI document that describes every operation.
const api = managerApiApp();

const createPartner = (body?: Record<string, unknown>) => createPartnerVia(api.manager, body);

describe('action endpoints with Content-Type: application/json and no body', () => {
  // curl -X POST -H 'Content-Type: application/json' sends no Content-Length at all; fetch and most
  // clients send Content-Length: 0. Both read as {}.
  const emptyPost = async (
    path: string,
    withLength: boolean,
  ): Promise<{ status: number; body: Record<string, unknown> }> => {
    const { host, port } = new URL(api.app.url);
    const socket = connect(Number(port), host.split(':')[0]);
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${MANAGER_TOKEN}\r\n` +
        `Content-Type: application/json\r\n${withLength ? 'Content-Length: 0\r\n' : ''}Connection: close\r\n\r\n`,
    );
    const raw = Buffer.concat(await socket.toArray()).toString('utf8');
    const [head, body] = raw.split('\r\n\r\n');
    return { status: Number(head!.split(' ')[1]), body: JSON.parse(body!) };
  };

  it.each([
    ['without Content-Length', false],
    ['with Content-Length: 0', true],
  ])('answers each action as without a body, %s', async (_how, withLength) => {
    const created = await createPartner();
    const rotated = await emptyPost(`/api/affiliates/${created.id}/rotate-key`, withLength);
    expect(rotated).toEqual({
      status: 200,
      body: {
        id: created.id,
        api_key: expect.stringMatching(/^lk_/),
        key_rotated_at: expect.any(String),
        grace_until: null,
      },
    });
    const tested = await emptyPost(`/api/affiliates/${created.id}/test-callback`, withLength);
    expect(tested).toEqual({
      status: 409,
      body: { error: 'conflict', message: expect.stringContaining('callback_url') },
    });
    expect(await emptyPost(`/api/affiliates/${created.id}/deliveries/retry-dead`, withLength)).toEqual({
      status: 200,
      body: { requeued: 0, pending: 0 },
    });
    expect((await emptyPost('/api/deliveries/dl-000000000000000000000000/retry', withLength)).status).toBe(404);
  });

  it('still refuses an empty body where one is required, with 422 naming the missing field', async () => {
    const res = await emptyPost('/api/affiliates', true);
    expect(res).toEqual({ status: 422, body: { error: 'invalid_request', message: expect.stringContaining('name') } });
  });
});

describe('OpenAPI document', () => {
  it('is served without a token and describes every manager operation', async () => {
    type Doc = {
      openapi: string;
      paths: Record<string, Record<string, { requestBody?: { required: boolean } }>>;
      components: { schemas: object };
    };
    const res = await api.manager.withToken(null).get<Doc>('/api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const operations = Object.entries(res.body.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(operations).toEqual(
      expect.arrayContaining([
        'POST /api/affiliates',
        'GET /api/affiliates',
        'GET /api/affiliates/{id}',
        'PATCH /api/affiliates/{id}',
        'POST /api/affiliates/{id}/rotate-key',
        'POST /api/affiliates/{id}/test-callback',
        'POST /api/affiliates/{id}/deliveries/retry-dead',
        'GET /api/deliveries',
        'GET /api/deliveries/{id}',
        'POST /api/deliveries/{id}/retry',
        'POST /api/agents',
        'GET /api/agents',
        'GET /api/agents/{id}',
        'PATCH /api/agents/{id}',
        'GET /api/audit-log',
        'GET /api/affiliates/{id}/endpoint-health',
        'POST /api/affiliates/{id}/endpoint/resume',
        'POST /api/affiliates/{id}/replay',
        'GET /api/replays/{id}',
      ]),
    );
    expect(operations).not.toContain('GET /api/openapi.json');
    expect(Object.keys(res.body.components.schemas)).toEqual(
      expect.arrayContaining(['PartnerSettings', 'AgentSettings']),
    );
    expect(res.body.paths['/api/affiliates/{id}/rotate-key']?.post?.requestBody?.required).toBe(false);
    expect(res.body.paths['/api/affiliates']?.post?.requestBody?.required).toBe(true);
  });
});
