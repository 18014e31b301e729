import { AssignmentWork } from '../../shared/kafka/assignment-work';
import type { Lease } from '../../shared/kafka/membership-lease';
import type { DeliveryDoc } from '../../shared/mongo/delivery-doc';
import type { LeadEvent } from '../../shared/schemas';
import { endpointId, type DeliveryKind } from '../../shared/delivery-kind';
import { EndpointBacklogs } from './endpoint-backlogs';
import { LeadLines } from './lead-lines';
import { ParkedLeads } from './parked-leads';

// One delivery of a lead to one of its partner's endpoints, in memory while it is not recorded.
export interface Item {
  id: string;
  kind: DeliveryKind;
  endpoint: string; // endpointId(partner, kind): its slots, pause and line
  key: string; // leadKey(endpoint, lead)
  partition: number;
  event: LeadEvent;
  doc: DeliveryDoc | null; // the record, when it exists already (a manual retry's round)
  recorded: Deferred | null; // the offset waiting for it
  assignment: OwnedPartitions; // the one it was taken under: its writes are refused once that one is fenced
}

// A delivery taken under the assignment `a`, named by its event's endpoint and lead.
export function newItem(
  a: OwnedPartitions,
  id: string,
  kind: DeliveryKind,
  event: LeadEvent,
  partition: number,
  doc: DeliveryDoc | null,
  recorded: Deferred | null,
): Item {
  const endpoint = endpointId(event.partner_id, kind);
  return { id, kind, endpoint, key: leadKey(endpoint, event.lead_id), partition, event, doc, recorded, assignment: a };
}

export interface Deferred {
  promise: Promise<void>;
  resolve(): void;
}

export function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

// One line per lead and endpoint: a lead's callbacks and its postbacks wait for their own kind only.
export const leadKey = (endpoint: string, leadId: string): string => `${endpoint}:${leadId}`;

// What the lead owner keeps for the partitions of one assignment of its group. kafkajs's eager
// rebalances revoke every partition at each join, so all of it is dropped at the hand-over before
// the join (once the attempts under way are recorded, or fenced) and a partition's leads are read
// back from the store when it is assigned again, never taken from an older assignment's memory.
export class OwnedPartitions {
  readonly work: AssignmentWork;
  readonly lines = new LeadLines<Item>();
  readonly parked = new ParkedLeads();
  readonly backlogs = new EndpointBacklogs();
  private readonly active = new Map<string, Item>(); // not yet recorded, by delivery id
  private readonly loaded = new Map<number, Promise<void>>(); // blocks read back, by partition
  private readonly epochs = new Map<number, number>(); // this owner's epoch of each partition (block-store.ts)
  private readonly lineWrites = new Map<string, Promise<void>>(); // the last write of each lead's line (inTurn)
  readonly retryChains = new Map<string, Promise<void>>(); // the last due task of each delivery (retry-turns.ts)

  // `lease`: the event consumer's (membership-lease.ts); its work is fenced once it runs out.
  constructor(lease?: Lease) {
    this.work = new AssignmentWork(lease);
  }

  // The delivery taken under this assignment and not yet recorded, if any.
  activeItem(id: string): Item | undefined {
    return this.active.get(id);
  }

  isActive(id: string): boolean {
    return this.active.has(id);
  }

  activate(item: Item): void {
    this.active.set(item.id, item);
  }

  // The item is recorded (or never will be by this owner): its offset may move.
  settle(item: Item): void {
    if (this.active.get(item.id) === item) this.active.delete(item.id);
    item.recorded?.resolve();
  }

  // The partition's blocks, read back once per assignment (a batch waits for a read that the
  // assignment started).
  loadOnce(partition: number, load: () => Promise<void>): Promise<void> {
    let loaded = this.loaded.get(partition);
    if (!loaded) {
      loaded = this.work.track(load());
      this.loaded.set(partition, loaded);
    }
    return loaded;
  }

  claimed(partition: number, epoch: number): void {
    this.epochs.set(partition, epoch);
  }

  // The epoch this owner's block writes carry: taken before the partition's blocks were read back.
  epochOf(partition: number): number {
    const epoch = this.epochs.get(partition);
    if (epoch === undefined) throw new Error(`partition ${partition} was not claimed by this assignment`);
    return epoch;
  }

  // The last write of the lead's line so far (undefined: none under way).
  lineWritten(key: string): Promise<void> | undefined {
    return this.lineWrites.get(key);
  }

  // Writes of one lead's line (its block saves, and the records that must come before one), one
  // after another in the order decided; none once the assignment is fenced.
  inTurn(key: string, write: () => Promise<unknown>, onError: (err: unknown) => void): void {
    const previous = this.lineWrites.get(key) ?? Promise.resolve();
    const next = previous
      .then(() => (this.work.fenced ? undefined : write()))
      .then(() => undefined)
      .catch(onError);
    this.lineWrites.set(key, next);
    void this.work.track(next).then(() => {
      if (this.lineWrites.get(key) === next) this.lineWrites.delete(key);
    });
  }
}
