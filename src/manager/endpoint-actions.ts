import type { AuditActor } from '../shared/audit';
import type { DeliveryKind } from '../shared/delivery-kind';
import { ApiError } from '../shared/errors';
import type { PartnerDoc, ReplayJobDoc } from '../shared/mongo/documents';
import { postbackFor } from '../shared/postbacks/postback-template';
import type { LeadEvent } from '../shared/schemas';
import type { TestCallbackResult } from '../dispatcher/commands';
import { deliveryView, type DeliveryView } from './delivery-queue';
import { rangeProblem } from './replay-range';
import type { ManagerServices } from './services';

// What a person asks the dispatcher to do about a partner's deliveries and endpoints, the same from
// the manager API and the partner portal: the command, its outcome as an answer or an ApiError, the
// audit entry. The callers check first that the partner or delivery is the caller's to act on.
type Deps<K extends keyof ManagerServices> = Pick<ManagerServices, K | 'audit'>;

// A dead delivery's fresh round of attempts; the record as the owner requeued it.
export async function retryDelivery(
  { dispatcher, audit }: Deps<'dispatcher'>,
  id: string,
  actor: AuditActor,
): Promise<DeliveryView> {
  const result = await dispatcher.retry(id, actor.id);
  if (result.outcome === 'not_found') throw new ApiError('not_found');
  if (result.outcome === 'not_dead')
    throw new ApiError('conflict', { detail: 'Only a dead delivery can be retried by hand' });
  if (result.outcome === 'pending') throw new ApiError('command_pending', { command: 'retry' }, { 'retry-after': '5' });
  const delivery = deliveryView(result.delivery);
  await audit.record(actor, 'delivery.retry', { partnerId: delivery.affiliate_id, target: delivery.id });
  return delivery;
}

export async function retryDeadDeliveries(
  { dispatcher, audit }: Deps<'dispatcher'>,
  partnerId: string,
  actor: AuditActor,
): Promise<{ requeued: number; pending: number }> {
  const { requeued, pending } = await dispatcher.retryDead(partnerId, actor.id);
  await audit.record(actor, 'delivery.retry_dead', { partnerId, details: { requeued, pending } });
  return { requeued, pending };
}

export async function resumeEndpoint(
  { endpoints, audit }: Deps<'endpoints'>,
  partnerId: string,
  kind: DeliveryKind,
  actor: AuditActor,
) {
  const result = await endpoints.resume(partnerId, actor.id, kind);
  if (result.outcome === 'not_paused') throw new ApiError('conflict', { detail: 'The endpoint is not paused' });
  await audit.record(actor, 'endpoint.resume', { partnerId, details: { requested_at: result.at, kind } });
  return { affiliate_id: partnerId, state: 'resuming' as const, requested_at: result.at };
}

export interface ReplayAsked {
  partnerId: string;
  from: string;
  to: string;
  events?: string[];
}

// A replay job over [from, to): refused (and changing nothing) for a bad range; audited once asked.
export async function startReplay(
  { endpoints, audit }: Deps<'endpoints'>,
  asked: ReplayAsked,
  maxRangeS: number,
  actor: AuditActor,
): Promise<ReplayJobDoc> {
  const from = new Date(asked.from);
  const to = new Date(asked.to);
  const events = asked.events ?? [];
  const problem = rangeProblem(from, to, maxRangeS);
  if (problem) throw new ApiError('invalid_request', { detail: problem });
  const result = await endpoints.replay({ partnerId: asked.partnerId, from, to, events, by: actor.id });
  const jobId = result.outcome === 'created' ? result.job._id : result.jobId;
  await audit.record(actor, 'partner.replay', {
    partnerId: asked.partnerId,
    target: jobId,
    details: { from, to, events },
  });
  if (result.outcome === 'pending')
    throw new ApiError('command_pending', { command: `replay (job ${jobId})` }, { 'retry-after': '5' });
  return result.job;
}

export function replayJobView(job: ReplayJobDoc) {
  const { _id, partner_id, partition: _p, cursor: _c, ...rest } = job;
  return { id: _id, affiliate_id: partner_id, ...rest };
}

// A signed synthetic lead.accepted to the partner's callback URL, sent by the dispatcher that keeps the
// endpoint with the code real deliveries use.
export async function sendTestCallback(
  { endpoints, audit }: Deps<'endpoints'>,
  partner: PartnerDoc,
  actor: AuditActor,
): Promise<TestCallbackResult> {
  const noUrl = new ApiError('conflict', { detail: 'This partner has no callback_url; set one with PATCH first' });
  if (!partner.callback_url) throw noUrl;
  const sent = await endpoints.testCallback(partner._id, actor.id);
  if (sent.outcome === 'pending')
    throw new ApiError('command_pending', { command: 'test callback' }, { 'retry-after': '5' });
  if (sent.outcome === 'not_found') throw noUrl;
  const { result } = sent;
  await audit.record(actor, 'partner.test_callback', {
    partnerId: partner._id,
    details: { delivered: result.delivered, http_status: result.http_status, error: result.error },
  });
  return result;
}

export async function sendTestPostback(
  { endpoints, audit }: Deps<'endpoints'>,
  partner: PartnerDoc,
  event: LeadEvent['event'],
  actor: AuditActor,
): Promise<TestCallbackResult> {
  const noTemplate = new ApiError('conflict', {
    detail: `This partner has no postback template for ${event}; set postbacks with PATCH first`,
  });
  if (!postbackFor(partner.postbacks, partner.status_mapping, event)) throw noTemplate;
  const sent = await endpoints.testPostback(partner._id, event, actor.id);
  if (sent.outcome === 'pending')
    throw new ApiError('command_pending', { command: 'test postback' }, { 'retry-after': '5' });
  if (sent.outcome === 'not_found') throw noTemplate;
  const { result } = sent;
  await audit.record(actor, 'partner.test_postback', {
    partnerId: partner._id,
    details: { event, delivered: result.delivered, http_status: result.http_status, error: result.error },
  });
  return result;
}
