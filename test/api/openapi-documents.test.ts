import { execFileSync } from 'node:child_process';
import { request } from 'node:http';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { leadStatusView } from '../../src/ingress/status-routes';
import { leadStatusSchema } from '../../src/ingress/partner-openapi/components';
import { ERRORS } from '../../src/shared/errors';
import { ManagerClient } from '../support/manager-client';
import { startTestApp, type TestApp } from '../support/test-app';

// The OpenAPI documents the service serves (manager, partner, partner portal): valid for an
// independent validator, together covering every route fastify serves, and every example passing
// the schema it illustrates.
type Doc = {
  openapi: string;
  paths: Record<string, Record<string, Record<string, unknown>>>;
  webhooks?: Record<string, unknown>;
  components: {
    schemas: Record<string, unknown>;
    securitySchemes?: Record<string, { name?: string; scheme?: string }>;
  };
};

const MANAGER_DOC = '/api/openapi.json';
const PARTNER_DOC = '/api/v1/inbound/openapi.json';
const PORTAL_DOC = '/portal/api/openapi.json';
// Served on purpose outside the documents: the operations endpoints of every role, the documents
// themselves and the static files of the manager console (under /console) and the portal (/portal).
const UNDOCUMENTED = [
  'GET /healthz',
  'GET /readyz',
  'GET /metrics',
  `GET ${MANAGER_DOC}`,
  `GET ${PARTNER_DOC}`,
  `GET ${PORTAL_DOC}`,
];
const undocumented = (op: string) => UNDOCUMENTED.includes(op) || /^GET \/(console|portal)(\/(?!api\/)|$)/.test(op);

let app: TestApp;
let docs: Record<'manager' | 'partner' | 'portal', Doc>;

async function fetchDoc(path: string): Promise<Doc> {
  const res = await fetch(`${app.url}${path}`); // no credentials of any kind
  expect(res.status).toBe(200);
  return (await res.json()) as Doc;
}

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'ingress' });
  docs = {
    manager: await fetchDoc(MANAGER_DOC),
    partner: await fetchDoc(PARTNER_DOC),
    portal: await fetchDoc(PORTAL_DOC),
  };
});

afterAll(async () => {
  await app?.destroy();
});

const operation = (doc: Doc, path: string, method: string) =>
  doc.paths[path]![method] as {
    requestBody: { content: Record<string, { schema: { properties: Record<string, { pattern?: string }> } }> };
    responses: Record<string, { content: Record<string, { examples?: object }> }>;
  };

const operations = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));

describe('the OpenAPI documents', () => {
  it.each(['manager', 'partner', 'portal'] as const)(
    'the %s document is valid OpenAPI 3.1 for @seriousme/openapi-schema-validator',
    (name) => {
      const result = validateOpenApi(docs[name]);
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
      expect(docs[name].openapi).toBe('3.1.0');
    },
  );

  it('describe every route fastify serves, each in one document', () => {
    const served = app.routes
      .served()
      .filter((r) => r.method !== 'HEAD') // fastify's automatic HEAD of every GET
      .map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')}`);
    const documented = [...operations(docs.manager), ...operations(docs.partner), ...operations(docs.portal)];
    expect(served.filter((op) => !undocumented(op)).sort()).toEqual([...documented].sort());
    expect(operations(docs.partner).sort()).toEqual([
      'GET /api/v1/inbound/leads/{externalId}/status',
      'GET /api/v1/leads',
      'GET /api/v1/reports',
      'POST /api/v1/inbound/leads',
    ]);
    expect(operations(docs.manager).filter((op) => op.includes('/v1/inbound') || op.includes('/portal/'))).toEqual([]);
    expect(operations(docs.portal).filter((op) => !op.includes(' /portal/api/'))).toEqual([]);
  });

  it('the partner document names every header, every answer and the callbacks', () => {
    const partner = docs.partner;
    const schemes = Object.values(partner.components.securitySchemes ?? {});
    expect(schemes.map((s) => s.name ?? s.scheme).sort()).toEqual(['X-Signature', 'X-Timestamp', 'bearer']);
    const intake = partner.paths['/api/v1/inbound/leads']!.post as {
      parameters: { name: string }[];
      responses: Record<string, { headers?: object }>;
    };
    expect(intake.parameters.map((p) => p.name)).toEqual(['Idempotency-Key']);
    expect(Object.keys(intake.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '409',
      '413',
      '415',
      '422',
      '429',
      '503',
    ]);
    expect(intake.responses['429']!.headers).toHaveProperty('Retry-After');
    expect(intake.responses['503']!.headers).toHaveProperty('Retry-After');
    expect(Object.keys(partner.webhooks ?? {}).sort()).toEqual([
      'lead.accepted',
      'lead.ftd',
      'lead.rejected',
      'lead.rtd',
      'lead.status_changed',
    ]);
  });

  it.each(['manager', 'partner', 'portal'] as const)('every example of the %s document passes its schema', (name) => {
    const doc = docs[name];
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ ...doc, $id: 'doc' });
    const checked = examplesOf(doc).map(({ pointer, value, at }) => {
      const valid = ajv.validate({ $ref: `doc#${pointer}` }, value);
      return { at, errors: valid ? null : ajv.errors };
    });
    expect(checked.filter((c) => c.errors)).toEqual([]);
    if (name === 'partner') expect(checked.length).toBeGreaterThan(30);
  });

  it('say what JSON Schema can (zones, URL shapes), and give the rules between fields as 422s with an example each', () => {
    const schemas = docs.manager.components.schemas as Record<
      string,
      { properties: Record<string, { enum?: string[] }> }
    >;
    for (const name of ['PartnerSettings', 'AgentSettings'])
      expect(schemas[name]!.properties.time_zone!.enum).toEqual(expect.arrayContaining(['UTC', 'Europe/Berlin']));
    const examples422 = (doc: Doc, path: string, method: string) =>
      Object.keys(operation(doc, path, method).responses['422']!.content['application/json']!.examples ?? {});
    expect(examples422(docs.manager, '/api/affiliates/{id}/replay', 'post')).toEqual([
      'from_not_before_to',
      'range_too_long',
    ]);
    expect(examples422(docs.portal, '/portal/api/replays', 'post')).toEqual(['from_not_before_to', 'range_too_long']);
    for (const path of ['/api/reports', '/api/reports.csv'])
      expect(examples422(docs.manager, path, 'get')).toEqual(['from_after_to', 'too_many_days']);
    expect(examples422(docs.manager, '/api/affiliates/{id}/postback-preview', 'post')).toEqual(['token_not_set']);
    for (const [doc, api] of [
      [docs.manager, '/api'],
      [docs.portal, '/portal/api'],
    ] as const) {
      for (const path of [`${api}/auth/links/use`, `${api}/me/password`])
        expect(examples422(doc, path, 'post')).toEqual(['common_password']);
      // A link's token is a body: its malformed JSON and wrong media type are answers too; its use is throttled.
      expect(Object.keys(operation(doc, `${api}/auth/links/peek`, 'post').responses)).toEqual(
        expect.arrayContaining(['400', '410', '413', '415', '422']),
      );
      expect(Object.keys(operation(doc, `${api}/auth/links/use`, 'post').responses)).toContain('429');
    }
    const body = (doc: Doc, path: string, method: string) =>
      operation(doc, path, method).requestBody.content['application/json']!.schema.properties;
    expect(body(docs.manager, '/api/affiliates/{id}/postback-preview', 'post').template!.pattern).toContain(
      '{(external_id|',
    );
    expect(body(docs.portal, '/portal/api/integration', 'patch').callback_url!.pattern).toContain(
      '[Ll][Oo][Cc][Aa][Ll]',
    );
  });

  it('the manager server refuses what its document refuses: partner ids of another shape, a template off its shape', async () => {
    const manager = new ManagerClient(app.url);
    const partner = (await manager.post<{ id: string }>('/api/affiliates', { name: 'Shapes' })).body;
    const partnerIds = (path: string) =>
      (
        operation(docs.manager, path, 'post').requestBody.content['application/json']!.schema.properties
          .partner_ids as { items: { pattern: string } }
      ).items.pattern;
    for (const path of ['/api/accounts', '/api/service-accounts'])
      expect(partner.id).toMatch(new RegExp(partnerIds(path)));
    expect('pa-nope').not.toMatch(new RegExp(partnerIds('/api/service-accounts')));
    const token = { name: 'Shapes', role: 'affiliate_manager', expires_in_days: 1 };
    expect((await manager.post('/api/service-accounts', { ...token, partner_ids: [partner.id] })).status).toBe(201);
    const refused = await manager.post<{ message: string }>('/api/service-accounts', {
      ...token,
      partner_ids: ['pa-nope'],
    });
    expect(refused.status).toBe(422);
    expect(refused.body.message).toContain('pattern');
    const preview = (template: string) =>
      manager.post<{ message: string }>(`/api/affiliates/${partner.id}/postback-preview`, { template });
    for (const template of ['http://tracker.example/pb?c={click_id}', 'http://192.0.2.7:8080/pb'])
      expect({ template, status: (await preview(template)).status }).toEqual({ template, status: 200 });
    for (const template of ['http://A*', 'https://tracker.example:99999/pb', 'https://tracker.example/p b'])
      expect({ template, status: (await preview(template)).status }).toEqual({ template, status: 422 });
  });

  it("error examples are the registry's own codes", () => {
    const codes = examplesOf(docs.partner)
      .map((e) => (e.value as { error?: string }).error)
      .filter((c): c is string => c !== undefined);
    expect(codes.length).toBeGreaterThan(10);
    for (const code of codes) expect(Object.keys(ERRORS)).toContain(code);
  });

  it.each([
    ['TRACE', '/api/affiliates/pa-1', 'GET, HEAD, PATCH'],
    ['QUERY', '/api/agents', 'GET, HEAD, POST'],
    ['DELETE', '/api/v1/inbound/leads', 'POST'],
  ])('answers %s %s with 405 and Allow: %s', async (method, path, allow) => {
    const res = await send(method, path);
    expect(res.status).toBe(405);
    expect(res.allow).toBe(allow);
    expect(JSON.parse(res.body)).toEqual({ error: 'method_not_allowed', message: expect.stringContaining(method) });
    expect((await send(method, '/api/nothing')).status).toBe(404);
  });

  it("the status lookup's schema is what leadStatusView sends", () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    const now = new Date('2026-11-22T10:00:00Z');
    const view = leadStatusView(
      { _id: 'le-7', external_id: 'x-1', status: 'contacted', is_depositor: false, created_at: now, updated_at: now },
      { status_mapping: { contacted: 'working' } },
    );
    expect(ajv.validate(leadStatusSchema, view)).toBe(true);
  });
});

// fetch refuses TRACE; node:http sends any method.
function send(method: string, path: string): Promise<{ status: number; allow: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${app.url}${path}`, { method }, (res) => {
      let body = '';
      res
        .on('data', (c: Buffer) => (body += c.toString()))
        .on('end', () => resolve({ status: res.statusCode ?? 0, allow: res.headers.allow, body }));
    });
    req.on('error', reject).end();
  });
}

// @seriousme/openapi-schema-validator is ES modules only, which jest's CommonJS runtime cannot load:
// it runs in a node of its own, the document on stdin.
function validateOpenApi(doc: Doc): { valid: boolean; errors?: unknown } {
  const script = `import { Validator } from '@seriousme/openapi-schema-validator';
    let text = ''; for await (const chunk of process.stdin) text += chunk;
    process.stdout.write(JSON.stringify(await new Validator().validate(JSON.parse(text))));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    input: JSON.stringify(doc),
    encoding: 'utf8',
    cwd: __dirname,
  });
  return JSON.parse(out) as { valid: boolean; errors?: unknown };
}

// Every example in a document with the JSON pointer of the schema it illustrates: media types
// (example and examples), parameters and headers.
function examplesOf(doc: Doc): { pointer: string; value: unknown; at: string }[] {
  const out: { pointer: string; value: unknown; at: string }[] = [];
  const walk = (node: unknown, path: string[]): void => {
    if (!node || typeof node !== 'object') return;
    const obj = node as Record<string, unknown>;
    if (obj.schema && typeof obj.schema === 'object') {
      const pointer = [...path, 'schema'].map((p) => `/${p.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
      if ('example' in obj) out.push({ pointer, value: obj.example, at: path.join(' ') });
      for (const [key, ex] of Object.entries((obj.examples ?? {}) as Record<string, { value: unknown }>)) {
        out.push({ pointer, value: ex.value, at: `${path.join(' ')} ${key}` });
      }
    }
    for (const [key, child] of Object.entries(obj)) if (key !== 'schema') walk(child, [...path, key]);
  };
  walk({ paths: doc.paths, webhooks: doc.webhooks ?? {} }, []);
  return out;
}
