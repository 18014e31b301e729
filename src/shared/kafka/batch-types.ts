import type { KafkaMessage } from 'kafkajs';
import type { DecodeError } from './codec';
import type { TopicKey } from './topics';

// What a batch consumer hands its handler, and what the handler gives back (batch-consumer.ts).

export interface Decoded<T> {
  topic: TopicKey;
  partition: number;
  message: KafkaMessage;
  value: T;
}

export interface Undecodable {
  topic: TopicKey;
  partition: number;
  message: KafkaMessage;
  error: DecodeError;
}

export interface BatchContext {
  topic: TopicKey;
  partition: number;
  // Counts the group joins of this member: a new value means the partition may have been away
  // (and its uncommitted records come again).
  generation: number;
  heartbeat(): Promise<void>;
}

// With commit 'recorded', what `handle` returns: per record (same order), a promise that resolves
// once the record's work is recorded for good, or undefined when it already is. Such promises
// should not reject (retry inside): a record never done holds its partition's commits back.
export type Recording = readonly (Promise<unknown> | undefined)[];
