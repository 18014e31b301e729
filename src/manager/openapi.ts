import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { SESSION_COOKIE } from './identity/session-cookie';
import { asDocumented } from '../shared/http/schema-parts';
import { documentTimeZones } from './time-zone-setting';

export const OPENAPI_PATH = '/api/openapi.json';

// The OpenAPI 3.1 document of the manager API, generated from the route schemas registered after
// this in the same context. Public on purpose: it describes the API and holds nothing secret.
export async function registerOpenApi(app: FastifyInstance, serviceName: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: `${serviceName} manager API`,
        version: '1.0.0',
        description:
          'Partner (affiliate) administration, the callback delivery queue, agents and accounts. Errors are {error, message}. ' +
          'Each operation names the roles that may call it (x-roles) and the permission it needs (x-access); other roles get 403 forbidden.',
      },
      components: {
        securitySchemes: {
          session: {
            type: 'apiKey',
            in: 'cookie',
            name: SESSION_COOKIE,
            description: 'A signed-in person (the console); requests that change something also send X-CSRF-Token',
          },
          serviceToken: {
            type: 'http',
            scheme: 'bearer',
            description: "A service account's token (lit_...), or a break-glass MANAGER_TOKENS token",
          },
        },
      },
      security: [{ session: [] }, { serviceToken: [] }],
    },
    transform: ({ schema, url }) => ({ schema: asDocumented(schema), url }),
    transformObject: (doc) => {
      const document = markNullableBodiesOptional(
        ('openapiObject' in doc ? doc.openapiObject : doc.swaggerObject) as OpenApiLike,
      );
      documentTimeZones(document.components?.schemas ?? {}, ['PartnerSettings', 'AgentSettings']);
      return document;
    },
    // Shared schemas keep their own titles (PartnerSettings, AgentSettings) as component names.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.title === 'string' ? json.title : `def-${i}`),
    },
  });
  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());
}

type OpenApiLike = {
  components?: { schemas?: Record<string, unknown> };
  paths?: Record<
    string,
    Record<string, { requestBody?: { required?: boolean; content?: Record<string, { schema?: { type?: unknown } }> } }>
  >;
};

// @fastify/swagger marks every request body required; a body whose schema admits null (rotate-key)
// may be left out, since fastify validates a missing body as null.
export function markNullableBodiesOptional<T extends OpenApiLike>(doc: T): T {
  for (const operations of Object.values(doc.paths ?? {})) {
    for (const { requestBody } of Object.values(operations)) {
      const type = requestBody?.content?.['application/json']?.schema?.type;
      if (requestBody && Array.isArray(type) && type.includes('null')) requestBody.required = false;
    }
  }
  return doc;
}
