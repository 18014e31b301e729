import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply } from 'fastify';
import { asServiceError } from '../driver-errors';
import { ApiError, DependencyError } from '../errors';

interface FastifyLikeError {
  code?: string;
  statusCode?: number;
  validation?: unknown;
  message: string;
}

// Maps whatever a route threw to one of the registry's {error, message} answers, so a schema
// failure, an unparsable body or fastify's own body checks never reach a client in fastify's shape.
export function toApiError(err: unknown, bodyLimitBytes: number): ApiError {
  if (err instanceof ApiError) return err;
  const e = (err ?? {}) as FastifyLikeError;
  if (e.validation) return new ApiError('invalid_request', { detail: e.message });
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('malformed_json');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', { limit: bodyLimitBytes });
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new ApiError('invalid_request', { detail: e.message });
  }
  // Kafka, MongoDB or Redis out of reach: the request may succeed when retried with the same
  // Idempotency-Key, so it is a 503, not a 500.
  if (asServiceError(err) instanceof DependencyError)
    return new ApiError('service_unavailable', {}, { 'retry-after': '2' });
  return new ApiError('internal_error');
}

// A path no route serves, or one that cannot name anything (bad percent-encoding, a parameter over
// maxParamLength): 404 not_found, like an unknown resource. A served path asked with a method it
// does not take: 405 method_not_allowed with the methods it takes in Allow.
export function answerNotFound(reply: FastifyReply, allowed: readonly string[] = []): FastifyReply {
  if (allowed.length > 0 && !allowed.includes(reply.request.method)) {
    const err = new ApiError('method_not_allowed', { method: reply.request.method }, { allow: allowed.join(', ') });
    return reply.code(err.status).headers(err.headers).send(err.body());
  }
  return reply.code(404).send(new ApiError('not_found').body());
}

// A request Node's HTTP parser refuses (headers over http.maxHeaderSize, bad syntax) never reaches
// fastify: answer it in the registry's shape too, then close, as Node and fastify do by default.
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const api =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new ApiError('headers_too_large', { limit: maxHeaderSize })
      : new ApiError('malformed_request');
  const body = JSON.stringify(api.body());
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${api.status} ${STATUS_CODES[api.status]}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
