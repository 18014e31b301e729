import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { markNullableBodiesOptional } from '../../../manager/openapi';
import { asDocumented } from '../../../shared/http/schema-parts';
import { PORTAL_COOKIE } from '../../../identity/portal-realm';

export const PORTAL_OPENAPI_PATH = '/portal/api/openapi.json';

// The partner portal's OpenAPI 3.1 document, generated from the schemas of the /portal/api routes
// registered after this in the same context (a second @fastify/swagger under its own decorator: the
// manager's document leaves these routes out). Public, like the manager's: it holds nothing secret.
export async function registerPortalOpenApi(app: FastifyInstance, serviceName: string): Promise<void> {
  await app.register(swagger, {
    decorator: 'portalSwagger',
    openapi: {
      openapi: '3.1.0',
      info: {
        title: `${serviceName} partner portal API`,
        version: '1.0.0',
        description:
          "A partner's own leads, numbers, callbacks and postbacks, and integration settings, for its people signed in to the portal. " +
          "Every answer is the signed-in partner's own: another partner's id answers 404. Errors are {error, message}. " +
          'Each operation names the portal permission it needs (x-access) and the roles that have it (x-roles); others get 403 forbidden.',
      },
      components: {
        securitySchemes: {
          portalSession: {
            type: 'apiKey',
            in: 'cookie',
            name: PORTAL_COOKIE,
            description: 'A signed-in portal session; requests that change something also send X-CSRF-Token',
          },
        },
      },
      security: [{ portalSession: [] }],
    },
    // The portal's auth hook writes each operation's x-access and x-roles (and security [] when public).
    transform: ({ schema, url }) => ({
      schema:
        !url.startsWith('/portal/api/') || url === PORTAL_OPENAPI_PATH
          ? { ...schema, hide: true }
          : asDocumented(schema),
      url,
    }),
    transformObject: (doc) =>
      markNullableBodiesOptional(
        ('openapiObject' in doc ? doc.openapiObject : doc.swaggerObject) as Parameters<
          typeof markNullableBodiesOptional
        >[0],
      ),
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.title === 'string' ? json.title : `def-${i}`),
    },
  });
  const document = () => (app as unknown as { portalSwagger(): unknown }).portalSwagger();
  app.get(PORTAL_OPENAPI_PATH, { schema: { hide: true }, config: { portalAccess: 'public' } }, async () => document());
}
