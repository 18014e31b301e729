import {
  HELD_FOR_PAUSED_ENDPOINT,
  isHeld,
  type DeliveryDoc,
  type DeliveryState,
  type QueuedDelivery,
  type WaitingDelivery,
} from '../../shared/mongo/delivery-doc';
import type { DeliveryCommand } from '../../shared/schemas';
import type { Attempted } from '../delivery-attempt';
import type { FirstRecord } from '../delivery-store';
import { transition, type BlockState, type Line, type LinePlan, type LineStep } from './lead-lines';

// The lead owner's decisions, one input at a time, over a lead's line: the line after it, and what to
// write, send and publish, in the order the steps are listed. No I/O, no clock, no promises, nothing
// changed in place: carry-out.ts keeps the line it returns and carries the steps out. At the
// end, which deliveries start a round at all (the owner asks before an input is made of them).

// What the plan needs of a delivery in memory (owned-partitions.ts's Item).
export interface PlanItem {
  id: string;
  doc: DeliveryDoc | null; // its record, when one exists already (a fresh round, a held one's turn)
  recorded: object | null; // the offset waiting for its record; null: a held one's turn (its event is committed)
}

export type OwnerInput<T extends PlanItem> =
  | { kind: 'arrived'; item: T } // an event's delivery, or a fresh round, joins its lead's line
  | { kind: 'send'; item: T; earlierJob: boolean } // its turn: is a job of it still in the scheduler?
  | { kind: 'refused'; item: T; stopping: boolean; dueAt: number } // the scheduler refused it (dueAt: a first tier's wait from now)
  | { kind: 'paused'; item: T } // its endpoint is paused when its attempt would start
  | { kind: 'attempted'; item: T; done: Attempted }
  | { kind: 'set-aside'; item: T; how: SetAside }
  | { kind: 'recorded'; line: LinePlan<T> } // a record is written: what its line decided meanwhile goes on
  | { kind: 'released'; blocker: string } // the lead's blocker ended on the retry path
  | { kind: 'parked' } // the retry path held the lead's blocker: its endpoint is paused
  | { kind: 'resume' } // the held blocker goes (its endpoint resumed, or its block was read back)
  | { kind: 'blocker-read'; blocker: string; record: DeliveryDoc | null } // a block read back: its blocker's record
  | { kind: 'turn-read'; id: string; record: DeliveryDoc | null }; // a held one's turn came: its record

// Not attempted now: on the first retry tier until dueAt, or held behind a blocker or a paused endpoint.
export type SetAside = { dueAt: Date } | { heldBy: string };

// A write of a delivery's record.
export type RecordWrite =
  | { insert: FirstRecord } // its first record, in bulk with others
  | { attempt: Attempted } // one more attempt on the record it has
  | { hold: string } // its record, held behind this blocker
  | { awaitRetry: Date }; // its record, due on the first retry tier

export type Step<T extends PlanItem> =
  | { do: 'save-block'; block: BlockState | null } // in the lead's turn, after its writes decided before
  | { do: 'publish-task'; item: T; done: Attempted } // the retry or dead task, the delivery's token (started)
  | { do: 'record-in-turn'; item: T; done: Attempted } // in the lead's turn, once its task is out
  | { do: 'leave-slot'; item: T } // once the task is out; what follows does not hold the partner's slot
  | { do: 'publish-overflow'; item: T; dueAt: number } // the first tier's task; given up (handed over): stop
  | { do: 'after-line'; item: T; what: string } // once the lead's writes so far are done; fenced: stop
  | { do: 'write'; item: T; write: RecordWrite } // a batched record refused (fenced): stop
  | { do: 'count-held'; item: T }
  | { do: 'settle'; item: T } // recorded, or never by this owner: its offset may move
  | { do: 'fork'; steps: Step<T>[] } // steps of their own, started now, alongside these
  | { do: 'send'; item: T } // its turn: `send`, with whether a job of it is still in the scheduler
  | { do: 'submit'; item: T } // to the scheduler; its attempt comes back as `attempted`
  | { do: 'await-earlier-job'; item: T } // stop if the assignment was handed over meanwhile
  | { do: 'read-turn'; id: string } // a held one's record, once any write of it under way is done
  | { do: 'send-record'; record: QueuedDelivery } // a held one's turn: its record is the delivery
  | { do: 'count-parked'; item: T }
  | { do: 'park-lead' } // the lead waits for its endpoint to resume
  | { do: 'decide'; input: OwnerInput<T> }; // plan this input now and carry its steps out before going on

const decide = <T extends PlanItem>(input: OwnerInput<T>): Step<T> => ({ do: 'decide', input });

// A lead's line after an input, and the steps to carry out for it.
export interface Planned<T extends PlanItem> {
  line: Line<T> | undefined;
  steps: Step<T>[];
}

export function plan<T extends PlanItem>(line: Line<T> | undefined, input: OwnerInput<T>): Planned<T> {
  const only = (steps: Step<T>[]): Planned<T> => ({ line, steps });
  switch (input.kind) {
    case 'arrived':
      return lineSteps(transition(line, { kind: 'arrive', item: input.item }));
    case 'released':
      return lineSteps(transition(line, { kind: 'released', blocker: input.blocker }));
    case 'resume': {
      // In line, not forked: the endpoint's release waits until the held one reached the scheduler.
      const resumed = transition(line, { kind: 'resume' });
      const held = resumed.plan.runHeld;
      return { line: resumed.line, steps: held ? [{ do: 'read-turn', id: held }] : [] };
    }
    case 'recorded':
      return lineSteps({ line, plan: input.line });
    case 'parked':
      return only([{ do: 'park-lead' }]);
    case 'send':
      // An earlier job of it is still under way (an attempt of an assignment handed over, its retry
      // task being published): this one goes once that has left, never as a second token.
      return only(
        input.earlierJob
          ? [
              {
                do: 'fork',
                steps: [
                  { do: 'await-earlier-job', item: input.item },
                  { do: 'send', item: input.item },
                ],
              },
            ]
          : [{ do: 'submit', item: input.item }],
      );
    case 'refused': {
      // Refused while stopping: left unrecorded, its offset uncommitted, for the next start. Else the
      // partner's queue is full: it waits on the first retry tier instead of in memory, unattempted.
      if (input.stopping) return only([]);
      const overflow: Step<T>[] = [
        { do: 'publish-overflow', item: input.item, dueAt: input.dueAt },
        decide({ kind: 'set-aside', item: input.item, how: { dueAt: new Date(input.dueAt) } }),
      ];
      return only([{ do: 'fork', steps: overflow }]);
    }
    case 'paused':
      // Held, not attempted and not dead; it goes first when the endpoint resumes.
      return only([
        decide({ kind: 'set-aside', item: input.item, how: { heldBy: HELD_FOR_PAUSED_ENDPOINT } }),
        { do: 'count-parked', item: input.item },
        { do: 'park-lead' },
      ]);
    case 'attempted':
      return attempted(line, input.item, input.done);
    case 'set-aside':
      return setAside(line, input.item, input.how);
    case 'blocker-read':
      return blockerRead(line, input.blocker, input.record);
    case 'turn-read':
      return turnRead(line, input.id, input.record);
  }
}

// The first attempt of a round is done (or a held one's, in its turn).
function attempted<T extends PlanItem>(line: Line<T> | undefined, item: T, done: Attempted): Planned<T> {
  // The line moves before the retry task exists: the task's `released` must find this delivery as
  // the lead's blocker, however soon it comes.
  const after = transition(line, {
    kind: 'finished',
    id: item.id,
    outcome: done.decision.state === 'queued' ? 'retrying' : 'ended',
  });
  // A held delivery's event is committed already: no replay brings it back after a crash. So its
  // record (after its task) is written before any later block of its lead, which may leave it out.
  const heldTurn = item.recorded === null;
  const steps: Step<T>[] = [
    { do: 'publish-task', item, done },
    ...(heldTurn ? [{ do: 'record-in-turn' as const, item, done }] : []),
    // Saved in the order decided (a release may change the block again right after).
    ...blockSteps<T>(after.plan.block),
    { do: 'leave-slot', item },
    // The block and the task before the record: a crash in between replays the event, attempted again.
    { do: 'after-line', item, what: 'record' },
    ...(item.doc === null
      ? [{ do: 'write' as const, item, write: { insert: done } }]
      : heldTurn
        ? []
        : [{ do: 'write' as const, item, write: { attempt: done } }]),
    { do: 'settle', item },
    decide({ kind: 'recorded', line: { ...after.plan, block: undefined } }),
  ];
  return { line: after.line, steps };
}

// A delivery that is not attempted now becomes its lead's blocker: recorded (as waiting on a retry
// tier, or held), after the lead's block.
function setAside<T extends PlanItem>(line: Line<T> | undefined, item: T, how: SetAside): Planned<T> {
  const after = transition(line, { kind: 'finished', id: item.id, outcome: 'retrying' });
  const write: RecordWrite | null =
    item.doc === null
      ? { insert: how }
      : 'dueAt' in how
        ? { awaitRetry: how.dueAt }
        : item.doc.held_by !== how.heldBy
          ? { hold: how.heldBy }
          : null;
  const steps: Step<T>[] = [
    ...blockSteps<T>(after.plan.block),
    { do: 'after-line', item, what: 'set aside' },
    ...(write ? [{ do: 'write' as const, item, write }] : []),
    { do: 'settle', item },
    decide({ kind: 'recorded', line: { ...after.plan, block: undefined } }),
  ];
  return { line: after.line, steps };
}

// A block read back: its blocker ended (a crash before its release reached this line), is a held
// one whose turn had come, is parked (held for its endpoint: it goes with the endpoint's paced
// release), or is on the retry path (its end sends `released`). No record: its event is
// uncommitted and comes again.
function blockerRead<T extends PlanItem>(
  line: Line<T> | undefined,
  blocker: string,
  record: DeliveryDoc | null,
): Planned<T> {
  if (!record) return { line, steps: [] };
  if (record.state !== 'queued') return lineSteps(transition(line, { kind: 'released', blocker }));
  if (record.held_by === HELD_FOR_PAUSED_ENDPOINT) return { line, steps: [{ do: 'park-lead' }] };
  if (isHeld(record)) return lineSteps(transition(line, { kind: 'resume' }));
  return { line, steps: [] };
}

// A held one's turn came and its record was read.
function turnRead<T extends PlanItem>(line: Line<T> | undefined, id: string, record: DeliveryDoc | null): Planned<T> {
  // Not written: its event comes again (lead-lines.ts), or came while the record was read.
  if (!record) return lineSteps(transition(line, { kind: 'record-missing', id }));
  // Its record ended already (a crash after its attempt).
  if (record.state !== 'queued') return lineSteps(transition(line, { kind: 'finished', id, outcome: 'ended' }));
  // No longer held: its turn went on before (an owner lost the lead after the record of its attempt,
  // or of its wait on a retry tier, and before the lead's next block). Its retry task was published
  // before that record and comes to this owner: the line waits for it as for any blocker on the retry
  // path, or both would send it. (A manager's fresh round not yet recorded as held comes again with
  // its command, whose offset waits for that record.)
  if (!isHeld(record)) return lineSteps(transition(line, { kind: 'finished', id, outcome: 'retrying' }));
  return { line, steps: [{ do: 'send-record', record }] };
}

// What the lead's line decided, in this order: its block, the ones it holds, the one it runs.
function lineSteps<T extends PlanItem>({ line, plan: decided }: LineStep<T>): Planned<T> {
  const steps: Step<T>[] = blockSteps(decided.block);
  if (decided.hold && decided.hold.length > 0) {
    const blocker = (line?.state === 'blocked' ? line.blocker : decided.block?.blocker) as string;
    for (const item of decided.hold) steps.push({ do: 'fork', steps: holdSteps(item, blocker) });
  }
  if (decided.run) steps.push({ do: 'send', item: decided.run });
  if (decided.runHeld) steps.push({ do: 'fork', steps: [{ do: 'read-turn', id: decided.runHeld }] });
  return { line, steps };
}

// Held behind the blocker: its record says so once the block that lists it is written.
function holdSteps<T extends PlanItem>(item: T, blocker: string): Step<T>[] {
  return [
    { do: 'after-line', item, what: 'hold' },
    { do: 'write', item, write: item.doc ? { hold: blocker } : { insert: { heldBy: blocker } } },
    { do: 'count-held', item },
    { do: 'settle', item },
  ];
}

const blockSteps = <T extends PlanItem>(block: BlockState | null | undefined): Step<T>[] =>
  block === undefined ? [] : [{ do: 'save-block', block }];

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
