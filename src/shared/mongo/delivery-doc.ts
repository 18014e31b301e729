import type { LeadEvent } from '../schemas';

// The stored shapes of the dispatcher's deliveries and lead blocks (documents.ts lists the others).

export type DeliveryState = 'queued' | 'delivered' | 'dead';

export interface DeliveryAttempt {
  attempt: number;
  at: Date;
  http_status: number | null;
  error: string | null;
  duration_ms: number;
  // The receiver's answer (first CALLBACK_RESPONSE_BODY_LIMIT characters); absent in records written
  // before attempts kept it.
  response_body?: string | null;
  url?: string; // a postback's: the URL called, the token masked
}

// What a delivery record holds in every state. One per (lead event, partner, kind), written once
// when its first attempt is done (in bulk with others), or when it is held or put off before one;
// then updated by _id by whoever holds its retry task (or its held turn): one writer at a time.
interface DeliveryRecord {
  _id: string; // dl-<hex of event id, partner and kind>
  kind?: 'postback'; // absent: a callback (delivery-kind.ts)
  event_id: string;
  event_name: string;
  partner_id: string;
  lead_id: string;
  event: LeadEvent;
  attempts_made: number; // in this round (a manager's retry or a replay starts a new one)
  attempts_left: number;
  last_http_status: number | null;
  last_response_body: string | null;
  last_error: string | null;
  attempts: DeliveryAttempt[]; // the last one says when it was delivered, or why it died
  manual_retries: { at: Date; by: string }[];
  created_at: Date;
  updated_at: Date;
}

// The stored `state` tells a delivery's states apart, and, while it is queued, `held_by`. A queued
// one that is not held waits for its next attempt, due at next_attempt_at: on a retry tier (its task
// is the delivery's token), a fresh round a manager asked for (no attempt made yet), or a first
// attempt put off because its partner's queue was full.
export interface WaitingDelivery extends DeliveryRecord {
  state: 'queued';
  held_by?: undefined;
  next_attempt_at: Date;
}

// Waits, unattempted, for an earlier delivery of its lead (the blocker named by held_by: a lead's
// deliveries go out in event order) or for its paused endpoint (held_by HELD_FOR_PAUSED_ENDPOINT).
// Its lead's block lists it.
export interface HeldDelivery extends DeliveryRecord {
  state: 'queued';
  held_by: string;
  next_attempt_at: null;
}

export interface DeliveredDelivery extends DeliveryRecord {
  state: 'delivered';
  held_by?: undefined;
  next_attempt_at: null;
}

// Out of attempts, or failed for good: the last attempt's error says why.
export interface DeadDelivery extends DeliveryRecord {
  state: 'dead';
  held_by?: undefined;
  next_attempt_at: null;
}

// held_by of a delivery held because its partner's endpoint is paused (otherwise held_by names the
// delivery of the same lead it waits for).
export const HELD_FOR_PAUSED_ENDPOINT = 'endpoint_paused';

export type QueuedDelivery = WaitingDelivery | HeldDelivery;
export type EndedDelivery = DeliveredDelivery | DeadDelivery;
export type DeliveryDoc = QueuedDelivery | EndedDelivery;

export const isHeld = (doc: DeliveryDoc): doc is HeldDelivery => doc.state === 'queued' && doc.held_by !== undefined;

// A lead whose deliveries to an endpoint wait for one delivery (on the retry path, or held and now
// being attempted). Written only when a delivery fails or is held, read back when the lead's
// partition is assigned; removed once nothing is held.
export interface DeliveryBlockDoc {
  _id: string; // <endpoint>:<lead id>
  partner_id: string; // the endpoint: the partner id for callbacks, "<partner id>.postback" for postbacks
  lead_id: string;
  partition: number; // of the lead on leads.events: the owner reads its partitions' blocks
  blocker: string; // delivery id
  held: string[]; // delivery ids, in event order
  epoch?: number; // of the partition's owner that wrote it last (block-store.ts); absent before epochs
  updated_at: Date;
}

// Where an endpoint's backlog on one partition of leads.events starts: its owner set the endpoint's
// events aside from there on (its circuit open, or its queue full) and reads them back from Kafka at
// the endpoint's pace (lead-owner/backlog-replay.ts). Every event of the endpoint on the partition
// from `from` on is owed, unless its record exists. Removed once the backlog has caught up.
export interface DeliveryBacklogDoc {
  _id: string; // <endpoint>:p<partition>
  endpoint: string;
  partition: number;
  from: number; // offset on leads.events
  epoch: number; // of the partition's owner that wrote it last (block-store.ts)
  updated_at: Date;
}

// The owner epoch of a partition of leads.events: taken by each new owner of the partition.
export interface PartitionEpochDoc {
  _id: string; // p<partition>
  epoch: number;
}
