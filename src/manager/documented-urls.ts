import { POSTBACK_MACROS } from '../shared/postbacks/postback-template';

// URL shapes the documents state, stricter than the routes validate: the server refuses the rest in
// code (422) after finding the partner, so validating them would answer an unknown partner 422, not
// 404, and refuse URLs it takes today (a raw non-ASCII path). What the URL parser always takes: a host
// name of letters and digits joined by single hyphens (so no punycode xn--, which may not decode), its
// last label starting with a letter (one of digits or 0x is read as an IPv4 address, so never an IP),
// a port of 0-65535, then URL characters or %XX escapes.
const LABEL = '[A-Za-z0-9]+(-[A-Za-z0-9]+)*';
const HOST = `(${LABEL}\\.)*[A-Za-z][A-Za-z0-9]*(-[A-Za-z0-9]+)*`;
const PORT = '(:([0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?';
const URL_CHAR = '[A-Za-z0-9._~!$&()*+,;=:@/?#-]|%[0-9A-Fa-f]{2}';
// A dotted-quad IPv4 address, as the URL parser writes one back (no leading zeros).
const OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const IPV4 = `${OCTET}(\\.${OCTET}){3}`;
const NOT_LOCALHOST = '(?!([A-Za-z0-9-]+\\.)*[Ll][Oo][Cc][Aa][Ll][Hh][Oo][Ss][Tt]([:/?#]|$))';

// A postback template: a host name or an IPv4 address (where a tracker may be reached; the dispatcher
// refuses private addresses when it sends), {macro} names only from POSTBACK_MACROS, in the path and
// query. The server also needs a postback token for {token} (a partner's state: documented with the 422).
export function documentedTemplate(allowHttp: boolean) {
  const part = `(${URL_CHAR}|\\{(${POSTBACK_MACROS.join('|')})\\})`;
  return {
    type: 'string',
    format: 'uri-template',
    minLength: 1,
    maxLength: 2048,
    pattern: `^${allowHttp ? 'https?' : 'https'}://(${HOST}|${IPV4})${PORT}([/?#]${part}*)?$`,
  };
}

// A callback URL a partner sets in the portal: https to a public host name (localhost is not public).
export const DOCUMENTED_PUBLIC_URL = {
  type: ['string', 'null'],
  format: 'uri',
  maxLength: 2048,
  pattern: `^https://${NOT_LOCALHOST}${HOST}${PORT}([/?#](${URL_CHAR})*)?$`,
};

// Whether a template has the documented shape: what the preview also refuses in code, so the route
// takes no draft its document refuses (a host such as "A*" the URL parser would take).
export function documentedTemplateShape(allowHttp: boolean): (template: string) => boolean {
  const shape = new RegExp(documentedTemplate(allowHttp).pattern);
  return (template) => shape.test(template);
}
