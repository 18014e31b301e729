import { createHash, randomBytes } from 'node:crypto';
import type { DeliveryKind } from './delivery-kind';

// Prefixed ids you can recognise in a log: le- lead, pa- partner, ag- agent, dl- delivery, cl- client, rp- replay job.
export const leadId = (seq: number): string => `le-${seq}`;
export const leadSeq = (id: string): number => Number(id.slice(3));
export const clientIdForLead = (lead: string): string => `cl-${leadSeq(lead)}`;
export const randomId = (prefix: 'pa' | 'ag' | 'au' | 'rp' | 'cr'): string =>
  `${prefix}-${randomBytes(8).toString('hex')}`;
// One delivery per (event, partner, kind): a callback's id is what it was before postbacks existed.
export const deliveryId = (eventId: string, partnerId: string, kind: DeliveryKind = 'callback'): string =>
  `dl-${createHash('sha256')
    .update(kind === 'postback' ? `${eventId}|${partnerId}|postback` : `${eventId}|${partnerId}`)
    .digest('hex')
    .slice(0, 24)}`;
