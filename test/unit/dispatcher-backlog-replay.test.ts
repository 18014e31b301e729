import type { KafkaMessage } from 'kafkajs';
import { BacklogReplay, type ReplayDeps } from '../../src/dispatcher/lead-owner/backlog-replay';
import type { Wanted } from '../../src/dispatcher/lead-owner/rounds';
import { deferred, OwnedPartitions, type Deferred } from '../../src/dispatcher/lead-owner/owned-partitions';
import type { Decoded } from '../../src/shared/kafka/batch-types';
import { NO_LEASE } from '../../src/shared/kafka/membership-lease';
import { createLogger } from '../../src/shared/logger';
import type { LeadEvent } from '../../src/shared/schemas';
import { leadEvent } from '../support/lead-events';

// How an endpoint's backlog goes in (the consumer sets its events aside once it cannot take them)
// and comes out (read back at the endpoint's pace: none while held, one probe, then as its queue has
// room), until it has caught up with the consumer and everything read back is recorded.
type Pace = 'none' | 'probe' | 'any';
let a: OwnedPartitions;
let pace: Pace;
let setsAside: boolean;
let room: number;
let roomWait: Deferred;
let arrived: string[];
let recordings: Map<string, Deferred>;
let reads: [number, number][];
let halts: number[];
let removed: number;
let replay: BacklogReplay;
let positions: Map<number, number>;

// The reader's turn: the replay takes what it takes, and the reader halts there or reads on.
async function take(from: number): Promise<number> {
  const batch = records.slice(from);
  const taken = await replay.take(0, batch);
  if (taken < batch.length) positions.delete(0);
  else positions.set(0, 16);
  return taken;
}

beforeEach(() => {
  a = new OwnedPartitions(NO_LEASE);
  a.claimed(0, 1);
  pace = 'any';
  setsAside = false;
  room = 100;
  roomWait = deferred();
  arrived = [];
  recordings = new Map();
  reads = [];
  halts = [];
  removed = 0;
  const deps = {
    backlogStore: { save: async () => true, remove: async () => void removed++ },
    hold: { pace: () => pace, setsAside: () => setsAside },
    scheduler: { room: () => room, untilRoom: () => roomWait.promise },
    logger: createLogger('silent'),
  } as unknown as ReplayDeps;
  replay = new BacklogReplay(
    {
      current: () => a,
      deliveries: async (events) => events.map((event) => [wanted(event)]),
      lookUp: async () => ({ known: new Set(), underWay: new Set() }),
      arrive: (_a, w) => {
        arrived.push(w.id);
        room--;
        const d = deferred();
        recordings.set(w.id, d);
        return d.promise;
      },
    },
    deps,
  );
  positions = new Map<number, number>();
  replay.attach({
    read: (p, offset) => (reads.push([p, offset]), positions.set(p, offset)),
    position: (p) => positions.get(p),
    halt: (p) => (halts.push(p), positions.delete(p)),
    haltAll: () => positions.clear(),
  });
});

const wanted = (event: LeadEvent): Wanted => ({
  id: event.event_id,
  event,
  kind: 'callback',
  endpoint: event.partner_id,
});
const events = Array.from({ length: 6 }, () => leadEvent('pa-1'));
const record = (i: number): Decoded<LeadEvent> => ({
  topic: 'leadEvents',
  partition: 0,
  message: { offset: String(10 + i) } as KafkaMessage,
  value: events[i] as LeadEvent,
});
const records = events.map((_, i) => record(i));

// The consumer's intake of events 0..n-1 at offsets 10.., then its batch is done.
async function consume(n: number): Promise<(Promise<unknown> | undefined)[]> {
  const batch = records.slice(0, n);
  const { aside } = replay.intakeBatch(
    a,
    0,
    batch.map((r) => Number(r.message.offset)),
    batch.map((r) => [wanted(r.value)]),
  );
  replay.opened(a, 0);
  return aside;
}

// One event of another batch: undefined when handled.
const intakeOne = (event: LeadEvent, offset: number) => replay.intakeBatch(a, 0, [offset], [[wanted(event)]]).aside[0];

it("sets an endpoint's events aside while its circuit holds, their offsets free once the backlog's start is saved", async () => {
  setsAside = true;
  const waits = await consume(3);
  expect(waits.every((w) => w instanceof Promise)).toBe(true);
  await expect(Promise.all(waits)).resolves.toEqual([undefined, undefined, undefined]);
  expect(a.backlogs.get('pa-1', 0)?.start).toBe(10);
  expect(reads).toEqual([[0, 10]]); // read back from its start once the batch is done
  // Another endpoint on the same partition is handled as it comes.
  setsAside = false;
  expect(intakeOne(leadEvent('pa-2'), 20)).toBeUndefined();
});

it('sets aside the deliveries beyond a full queue, counting those the same batch handles', async () => {
  room = 2;
  const waits = await consume(4);
  expect(waits.map((w) => w === undefined)).toEqual([true, true, false, false]);
});

it('reads nothing back while the endpoint is held, one probe when its probe is due, the rest once it closed', async () => {
  setsAside = true;
  await consume(6);
  pace = 'none';
  expect(await take(0)).toBe(0);
  expect(arrived).toEqual([]);
  expect(halts).toEqual([0]); // waits for the endpoint, the partition unread meanwhile
  pace = 'probe';
  replay.released('pa-1'); // its circuit's probe came due
  expect(reads[reads.length - 1]).toEqual([0, 10]);
  await take(0);
  expect(arrived).toEqual([events[0]?.event_id]); // the probe alone
  await take(1);
  expect(arrived).toHaveLength(1); // its answer is awaited
  pace = 'any';
  replay.released('pa-1');
  expect(reads[reads.length - 1]).toEqual([0, 11]); // read again from where it stopped
  expect(await take(1)).toBe(5);
  expect(arrived).toEqual(events.map((e) => e.event_id));
});

it("stops at the endpoint's room and goes on from there when it has more", async () => {
  setsAside = true;
  await consume(6);
  room = 2;
  expect(await take(0)).toBe(2);
  expect(arrived).toHaveLength(2);
  room = 10;
  roomWait.resolve();
  await new Promise((r) => setImmediate(r));
  expect(reads[reads.length - 1]).toEqual([0, 12]);
  await take(2);
  expect(arrived).toHaveLength(6);
});

it('has caught up once read back to where the consumer decided, and is removed once all it read back is recorded', async () => {
  setsAside = true;
  await consume(6);
  await take(0);
  const b = a.backlogs.get('pa-1', 0)!;
  expect(b.merged).toBe(true);
  expect(halts).toEqual([0]); // nothing more to read on the partition
  setsAside = false;
  // The consumer coming to an offset the backlog read back leaves its delivery to the backlog: one
  // taken twice could be sent twice (recorded while the consumer looked it up).
  const { handled } = replay.intakeBatch(a, 0, [12], [[wanted(events[2]!)]]);
  expect(handled).toEqual([[]]);
  expect(intakeOne(leadEvent('pa-1'), 16)).toBeUndefined(); // handled again
  for (const d of recordings.values()) d.resolve();
  await new Promise((r) => setImmediate(r));
  expect(removed).toBe(1);
  expect(a.backlogs.get('pa-1', 0)).toBeUndefined();
});
