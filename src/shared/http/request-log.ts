import type { FastifyRequest } from 'fastify';

// What a request's log line shows of its URL: a one-time link's token, which an old client may still put in the
// path, and the secrets an OpenID Provider's redirect carries in the query never reach a log.
const LINK_PATH = /(\/auth\/links\/)(?!(?:peek|use)$)[^?]+/;
const SECRET_PARAMS = new Set(['code', 'state', 'token', 'id_token', 'access_token', 'session_state']);
const REDACTED = '[redacted]';

export function loggableUrl(url: string): string {
  const at = url.indexOf('?');
  const path = (at < 0 ? url : url.slice(0, at)).replace(LINK_PATH, `$1${REDACTED}`);
  if (at < 0) return path;
  const query = url
    .slice(at + 1)
    .split('&')
    .map((pair) => {
      const name = pair.split('=', 1)[0]!;
      return SECRET_PARAMS.has(name.toLowerCase()) ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
  return `${path}?${query}`;
}

// fastify's request serializer, with the URL made loggable.
export function requestLogView(req: FastifyRequest) {
  return {
    method: req.method,
    url: loggableUrl(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}
