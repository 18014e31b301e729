import type { DeliveryDoc, DeliveryState, WaitingDelivery } from '../../shared/mongo/delivery-doc';
import type { DeliveryCommand } from '../../shared/schemas';
import type { Attempted } from '../delivery-attempt';

// Which deliveries start a round of attempts: an event's, as its batch comes in, and a manager's
// retry or a replay of one that was recorded. The owner (owner.ts) reads the facts.

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

// An attempt's outcome that came after its assignment's lease ran out (sent while it held): a
// delivery has its record written where the store lets it, so the next owner finds it delivered
// rather than sending it again; any other outcome would need its retry task or dead letter published
// by an owner that lost the partition, so it is dropped and the next owner attempts it again.
export const recordedLate = <T extends Pick<Attempted, 'decision'>>(done: T | 'held'): done is T =>
  done !== 'held' && done.decision.state === 'delivered';
