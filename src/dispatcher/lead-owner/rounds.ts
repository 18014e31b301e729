import { deliveryId } from '../../shared/ids';
import { testLabel, type PartnerDoc } from '../../shared/mongo/documents';
import type { PartnerDirectory } from '../../shared/partners/partner-directory';
import type { Logger } from '../../shared/logger';
import type { DeliveryCommand, LeadEvent } from '../../shared/schemas';
import { endpointId, type DeliveryKind } from '../../shared/delivery-kind';
import { postbackFor } from '../../shared/postbacks/postback-template';
import type { DispatcherMetrics } from '../metrics';
import type { DeliveryDoc, DeliveryState, WaitingDelivery } from '../../shared/mongo/delivery-doc';

// Which deliveries start a round of attempts: the ones an event makes for its partner, as its batch
// comes in (its partner's settings read here), unless recorded or under way already; and a manager's
// retry or a replay of one that was recorded. Pure choices over the facts the owner (owner.ts) reads.

// Whether a partner wants this event (spec 2.1 and 6.2): only with a callback_url, and only events
// in callback_events when that list is not empty.
export type Eligibility = 'send' | 'no_callback_url' | 'not_in_whitelist';

export function callbackEligibility(
  partner: Pick<PartnerDoc, 'callback_url' | 'callback_events'>,
  event: LeadEvent['event'],
): Eligibility {
  if (!partner.callback_url) return 'no_callback_url';
  const whitelist = partner.callback_events ?? [];
  if (whitelist.length > 0 && !whitelist.includes(event)) return 'not_in_whitelist';
  return 'send';
}

// The deliveries an event makes for its partner: a callback (above), a postback (a template for the
// event, in the postback whitelist), both or none.
export function deliveryKinds(
  partner: Pick<PartnerDoc, 'callback_url' | 'callback_events' | 'postbacks' | 'status_mapping'>,
  event: LeadEvent['event'],
): DeliveryKind[] {
  const kinds: DeliveryKind[] = [];
  if (callbackEligibility(partner, event) === 'send') kinds.push('callback');
  if (postbackFor(partner.postbacks, partner.status_mapping, event)) kinds.push('postback');
  return kinds;
}

// One delivery an event makes: to one endpoint of its partner.
export interface Wanted {
  id: string;
  event: LeadEvent;
  kind: DeliveryKind;
  endpoint: string;
}

export interface EventDeliveriesDeps {
  partners: PartnerDirectory;
  metrics: DispatcherMetrics;
  logger: Logger;
}

// The deliveries each event makes, as its partner wants them now (none: counted as skipped, once,
// where the partition's consumer reads it; `count` false where it is read again from a backlog).
export async function eventDeliveries(
  { partners, metrics, logger }: EventDeliveriesDeps,
  events: readonly LeadEvent[],
  count = true,
): Promise<Wanted[][]> {
  const wanted: Wanted[][] = [];
  for (const event of events) {
    const partner = await partners.byId(event.partner_id);
    const kinds = partner ? deliveryKinds(partner, event.event) : [];
    wanted.push(
      kinds.map((kind) => ({
        id: deliveryId(event.event_id, event.partner_id, kind),
        event,
        kind,
        endpoint: endpointId(event.partner_id, kind),
      })),
    );
    if (kinds.length > 0 || !count) continue;
    metrics.deliveries.inc({
      event: event.event,
      outcome: 'skipped',
      partner_id: event.partner_id,
      test: testLabel(event.test),
    });
    logger.debug(
      {
        event_id: event.event_id,
        partner_id: event.partner_id,
        reason: partner ? 'not_wanted' : 'unknown_partner',
      },
      'no callback or postback for this event',
    );
  }
  return wanted;
}

// What this owner knew of an event's delivery: its record existed when looked up (ids under way
// are not looked up), it is under way now, it was under way when the look-up started.
export interface ArrivalFacts {
  recorded: boolean;
  active: boolean;
  wasActive: boolean;
}

// `arrive`: a new delivery joins its lead's line; `join`: the one under way is the same delivery
// (its offset waits for the same record); `skip`: never sent again.
export function arrival(f: ArrivalFacts): 'arrive' | 'join' | 'skip' {
  if (f.recorded) return 'skip'; // a repeat, or replayed after a crash
  if (f.active) return 'join';
  // It left the active set while the look-up ran, so it was recorded meanwhile (an item leaves the
  // active set only once recorded): a replayed event of it must not start it again.
  if (f.wasActive) return 'skip';
  return 'arrive';
}

type RoundCommand = Pick<DeliveryCommand, 'kind' | 'by'>;

// A manager's retry starts a fresh round of a dead delivery; a replay, of one that ended.
export const roundFrom = (command: RoundCommand): readonly DeliveryState[] =>
  command.kind === 'replay' ? ['delivered', 'dead'] : ['dead'];

// One round per replay job and delivery, however often its command comes (a job resumed by a
// partition's next owner repeats the commands since its last saved progress).
export const replayedAlready = (doc: DeliveryDoc | null, command: RoundCommand): boolean =>
  command.kind === 'replay' && doc !== null && doc.manual_retries.some((r) => r.by === command.by);

// A record the manager's API requeued itself for this command, whose round has not started.
export function isFreshRound(doc: DeliveryDoc, commandAt: string): doc is WaitingDelivery {
  const last = doc.manual_retries[doc.manual_retries.length - 1];
  return (
    doc.state === 'queued' &&
    doc.attempts_made === 0 &&
    doc.held_by === undefined &&
    last?.at.getTime() === Date.parse(commandAt)
  );
}
