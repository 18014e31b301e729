import { arrival, isFreshRound, replayedAlready, roundFrom } from '../../src/dispatcher/lead-owner/rounds';
import { HELD_FOR_PAUSED_ENDPOINT } from '../../src/shared/mongo/delivery-doc';
import { endedRecord, failed, fresh, heldRecord, heldTurn, K, round, waitingRecord } from '../support/lead-plan';
import { lead } from '../support/lead-outcomes';

// The lead owner's rules for sends, deliveries set aside, held turns, blocks read back and fresh
// rounds, as outcomes of the pure plan (plan.ts), and rounds.ts's verdicts.
const PARKED = HELD_FOR_PAUSED_ENDPOINT;

describe('sends', () => {
  it('sends a delivery whose earlier job is still in the scheduler only once that job has left', () => {
    const { carry } = lead();
    expect(carry({ kind: 'send', item: fresh('a'), earlierJob: true })).toEqual([
      'wait for the earlier job of a',
      'send a',
    ]);
    expect(carry({ kind: 'send', item: fresh('a'), earlierJob: false })).toEqual(['send a']);
  });

  it('puts a delivery its full partner queue refused on the first retry tier: the task before the record', () => {
    const { lines, plan, carry } = lead('a', 'b');
    plan({ kind: 'refused', item: fresh('a'), stopping: false, dueAt: 5000 });
    expect(lines.blocked(K)).toBeNull(); // the line moves only once the task is out
    expect(carry({ kind: 'refused', item: fresh('a'), stopping: false, dueAt: 5000 })).toEqual([
      'task a on the first tier (queue full)',
      'block a [b]',
      'record a: waits on the first tier until 5000, first record',
      'offset of a may move',
      'record b: held by a, first record',
      'counted held b',
      'offset of b may move',
    ]);
    expect(lines.blocked(K)).toEqual({ blocker: 'a', held: ['b'] });
  });

  it('moves a fresh round the scheduler refused to the retry tier on the record it has', () => {
    const { carry } = lead();
    carry({ kind: 'arrived', item: round('r') });
    expect(carry({ kind: 'set-aside', item: round('r'), how: { dueAt: new Date(5000) } })).toContain(
      'record r: waits on the first tier until 5000',
    );
  });

  it('leaves a delivery refused while stopping unrecorded, its offset uncommitted, for the next start', () => {
    const { carry } = lead('a');
    expect(carry({ kind: 'refused', item: fresh('a'), stopping: true, dueAt: 5000 })).toEqual([]);
  });
});

describe('a paused endpoint', () => {
  it('parks a delivery whose endpoint is paused: held, not attempted and not dead, and its lead waits for the resume', () => {
    const { lines, carry } = lead('a');
    expect(carry({ kind: 'paused', item: fresh('a') })).toEqual([
      'block a []',
      `record a: held by ${PARKED}, first record`,
      'offset of a may move',
      'counted held a',
      'lead parked',
    ]);
    expect(lines.blocked(K)).toEqual({ blocker: 'a', held: [] });
  });

  it('does not write a parked record again that is held for its paused endpoint already', () => {
    const { carry } = lead();
    const parked = heldTurn('a', PARKED);
    carry({ kind: 'arrived', item: parked });
    expect(carry({ kind: 'set-aside', item: parked, how: { heldBy: PARKED } })).toEqual([
      'block a []',
      'offset of a may move',
    ]);
  });

  it('parks the lead on a `parked` command, and sends its held blocker first when the endpoint resumes', () => {
    const { load, plan, carry } = lead();
    expect(carry({ kind: 'parked' })).toEqual(['lead parked']);
    load({ blocker: 'a', held: ['b'] });
    // Not started alongside: the release waits for it to reach the scheduler, so it goes at the endpoint's pace.
    expect(plan({ kind: 'resume' })).toEqual([{ do: 'read-turn', id: 'a' }]);
    expect(carry({ kind: 'resume' })).toEqual([]); // under way already
  });
});

describe("a held delivery's turn", () => {
  const turn = () => {
    const p = lead();
    p.load({ blocker: 'a', held: [] });
    p.carry({ kind: 'resume' });
    return p;
  };

  it('sends the held delivery whose record it read', () => {
    expect(turn().carry({ kind: 'turn-read', id: 'a', record: heldRecord('a', 'x') })).toEqual(['send a']);
  });

  it('moves on when the record of its turn ended already (a crash after its attempt)', () => {
    const { lines, carry } = turn();
    expect(carry({ kind: 'turn-read', id: 'a', record: endedRecord('a', 'delivered') })).toEqual(['block removed']);
    expect(lines.size).toBe(0);
  });

  it("moves on when its record is missing, or sends its event's replay that came while it was read", () => {
    expect(turn().carry({ kind: 'turn-read', id: 'a', record: null })).toEqual(['block removed']);
    const replayed = turn();
    expect(replayed.carry({ kind: 'arrived', item: fresh('a') })).toEqual([]); // the running one's own event
    expect(replayed.carry({ kind: 'turn-read', id: 'a', record: null })).toEqual(['send a']);
  });
});

describe('a block read back at assignment', () => {
  // The plan loads the block into the lead's line as it reads its blocker's record.
  const block = { blocker: 'a', held: ['b'] };

  it('releases a blocker that ended before its release reached the line', () => {
    expect(lead().carry({ kind: 'blocker-read', block, record: endedRecord('a', 'dead') })).toEqual([
      'block b []',
      'read the record of b',
    ]);
  });

  it('sends a held blocker whose turn had come', () => {
    expect(lead().carry({ kind: 'blocker-read', block, record: heldRecord('a', 'z') })).toEqual([
      'read the record of a',
    ]);
  });

  it('parks a lead whose blocker was held for its endpoint: it goes with the paced release, not at once', () => {
    const { lines, carry } = lead();
    expect(carry({ kind: 'blocker-read', block, record: heldRecord('a', PARKED) })).toEqual(['lead parked']);
    expect(lines.blocked(K)).toEqual({ blocker: 'a', held: ['b'] });
    expect(carry({ kind: 'resume' })).toEqual(['read the record of a']);
  });

  it('waits for the release of a blocker on the retry path, and for the event of one never recorded', () => {
    const { lines, carry } = lead();
    expect(carry({ kind: 'blocker-read', block, record: waitingRecord('a') })).toEqual([]);
    expect(carry({ kind: 'blocker-read', block, record: null })).toEqual([]);
    expect(lines.blocked(K)).toEqual(block);
  });

  it('holds an event that arrives behind a loaded block', () => {
    const { carry } = lead();
    carry({ kind: 'blocker-read', block, record: waitingRecord('a') });
    expect(carry({ kind: 'arrived', item: fresh('c') })).toEqual([
      'block a [b, c]',
      'record c: held by a, first record',
      'counted held c',
      'offset of c may move',
    ]);
  });
});

describe('which deliveries start a round', () => {
  it('never sends a recorded delivery again, and never restarts a replay of one under way', () => {
    expect(arrival({ recorded: true, active: false, wasActive: false })).toBe('skip');
    expect(arrival({ recorded: false, active: true, wasActive: true })).toBe('join');
    expect(arrival({ recorded: false, active: false, wasActive: true })).toBe('skip'); // recorded meanwhile
    expect(arrival({ recorded: false, active: false, wasActive: false })).toBe('arrive');
  });

  it("takes the running delivery's replayed event as its replay, not as a second delivery", () => {
    const { carry } = lead('a');
    expect(carry({ kind: 'arrived', item: fresh('a') })).toEqual([]);
    expect(carry({ kind: 'attempted', item: fresh('a'), done: failed })).toContain('task a on retry1');
  });

  it("requeues a dead delivery for a manager's retry, and a delivered or dead one for a replay", () => {
    expect(roundFrom({ kind: 'retry' })).toEqual(['dead']);
    expect(roundFrom({ kind: 'replay', by: 'rp-1' })).toEqual(['delivered', 'dead']);
  });

  it('starts one round per replay job and delivery, however often its command comes', () => {
    const replayed = { ...endedRecord('a', 'delivered'), manual_retries: [{ at: new Date(0), by: 'rp-1' }] };
    expect(replayedAlready(replayed, { kind: 'replay', by: 'rp-1' })).toBe(true);
    expect(replayedAlready(replayed, { kind: 'replay', by: 'rp-2' })).toBe(false);
    expect(replayedAlready(replayed, { kind: 'retry', by: 'rp-1' })).toBe(false);
    expect(replayedAlready(null, { kind: 'replay', by: 'rp-1' })).toBe(false);
  });

  it('goes on only with a round requeued for this command and not started', () => {
    const at = '2026-11-27T10:00:05.000Z';
    const requeued = waitingRecord('a', [{ at: new Date(at), by: 'ops' }]);
    expect(isFreshRound(requeued, at)).toBe(true);
    expect(isFreshRound(requeued, '2026-11-27T10:00:06.000Z')).toBe(false); // another command's round
    expect(isFreshRound({ ...requeued, attempts_made: 1 }, at)).toBe(false); // under way
    expect(isFreshRound({ ...heldRecord('a', 'x'), manual_retries: requeued.manual_retries }, at)).toBe(false);
    expect(isFreshRound({ ...endedRecord('a', 'dead'), manual_retries: requeued.manual_retries }, at)).toBe(false);
  });
});
