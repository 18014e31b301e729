// A lead event goes to up to two endpoints of its partner: the callback URL (a signed JSON POST) and
// the tracker (a GET postback). Each endpoint has its own health and pause, its own slots
// and its own line per lead. A callback endpoint is named by the partner id alone, as before
// postbacks existed (records, blocks and health documents stay as they were); a tracker by
// "<partner id>.postback".
export type DeliveryKind = 'callback' | 'postback';

const POSTBACK_SUFFIX = '.postback';

// Records and messages carry `kind` only for postbacks.
export const kindOf = (x: { kind?: 'postback' | undefined }): DeliveryKind => x.kind ?? 'callback';
export const kindField = (kind: DeliveryKind): { kind?: 'postback' } => (kind === 'postback' ? { kind } : {});

export const endpointId = (partnerId: string, kind: DeliveryKind): string =>
  kind === 'postback' ? `${partnerId}${POSTBACK_SUFFIX}` : partnerId;

export function endpointOwner(endpoint: string): { partnerId: string; kind: DeliveryKind } {
  return endpoint.endsWith(POSTBACK_SUFFIX)
    ? { partnerId: endpoint.slice(0, -POSTBACK_SUFFIX.length), kind: 'postback' }
    : { partnerId: endpoint, kind: 'callback' };
}
