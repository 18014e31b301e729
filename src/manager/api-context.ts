import type { FastifyInstance } from 'fastify';
import { toApiError } from '../shared/http/fastify-errors';
import { schemas } from '../shared/schemas';
import { SHARED_SCHEMA_IDS } from './api-schemas';
import { managerValidatorCompiler } from './validation';

// What the manager API and the partner portal's API answer by, each in its own context: the
// project's validation, `{error, message}` answers, and no leak of either into the partner API.
export function apiContext(app: FastifyInstance, o: { name: string; bodyLimitBytes: number }): void {
  app.setValidatorCompiler(managerValidatorCompiler);
  // curl and most clients send Content-Type: application/json with no body on a bare POST action.
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) =>
    body === '' ? done(null, {}) : json(req, body as string, done),
  );
  // Response schemas document the answers; the views built in code decide what is sent.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.setErrorHandler((err, req, reply) => {
    const apiError = toApiError(err, o.bodyLimitBytes);
    if (apiError.status >= 500) req.log.error({ err }, `${o.name} request failed`);
    return reply.code(apiError.status).headers(apiError.headers).send(apiError.body());
  });
  for (const id of SHARED_SCHEMA_IDS) app.addSchema(schemas.get(id) as { $id: string });
}
