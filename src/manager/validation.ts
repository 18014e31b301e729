import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { ajv as bodyAjv } from '../shared/schemas';

// Bodies are checked by the project's own strict ajv, which already holds every schema in schemas/,
// so a route can $ref partner-settings.json or agent.json and an unknown field is refused (fastify's
// default ajv would silently strip it). Query strings and path parameters arrive as text, so they
// get a second instance that coerces "50" to 50 and fills defaults.
const textAjv = new Ajv({ coerceTypes: true, useDefaults: true, strict: true, allErrors: false });
addFormats(textAjv);

export const managerValidatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : textAjv).compile(schema);
