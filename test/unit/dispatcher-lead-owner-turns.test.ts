import { arrival, isFreshRound, recordedLate, replayedAlready, roundFrom } from '../../src/dispatcher/lead-owner/plan';
import { HELD_FOR_PAUSED_ENDPOINT } from '../../src/shared/mongo/delivery-doc';
import {
  decision,
  endedRecord,
  failed,
  fresh,
  heldRecord,
  heldTurn,
  K,
  planner,
  round,
  shape,
  waitingRecord,
} from '../support/lead-plan';

// The lead owner's rules for sends, deliveries set aside, held turns, blocks read back and fresh
// rounds, as the plan (plan.ts) states them.

describe('sends', () => {
  it('sends a delivery whose earlier job is still in the scheduler only once that job has left', () => {
    const { plan } = planner();
    expect(shape(plan({ kind: 'send', item: fresh('a'), earlierJob: true }))).toEqual([
      'fork(await-earlier-job, send)',
    ]);
    expect(plan({ kind: 'send', item: fresh('a'), earlierJob: false })).toEqual([{ do: 'submit', item: fresh('a') }]);
  });

  it('puts a delivery its full partner queue refused on the first retry tier: the task before the record', () => {
    const { lines, plan } = planner();
    plan({ kind: 'arrived', item: fresh('a') });
    plan({ kind: 'arrived', item: fresh('b') });
    const steps = plan({ kind: 'refused', item: fresh('a'), stopping: false, dueAt: 5000 });
    expect(shape(steps)).toEqual(['fork(publish-overflow, decide:set-aside)']);
    expect(lines.blocked(K)).toBeNull(); // the line moves only once the task is out
    const aside = plan(decision(steps, 'set-aside'));
    expect(shape(aside)).toEqual(['save-block', 'after-line', 'write', 'settle', 'decide:recorded']);
    expect(aside[2]).toEqual({ do: 'write', item: fresh('a'), write: { insert: { dueAt: new Date(5000) } } });
    expect(lines.blocked(K)).toEqual({ blocker: 'a', held: ['b'] });
    expect(shape(plan(decision(aside, 'recorded')))).toEqual(['fork(after-line, write, count-held, settle)']);
  });

  it('moves a fresh round the scheduler refused to the retry tier on the record it has', () => {
    const { plan } = planner();
    plan({ kind: 'arrived', item: round('r') });
    const aside = plan({ kind: 'set-aside', item: round('r'), how: { dueAt: new Date(5000) } });
    expect(aside[2]).toEqual({ do: 'write', item: round('r'), write: { awaitRetry: new Date(5000) } });
  });

  it('leaves a delivery refused while stopping unrecorded, its offset uncommitted, for the next start', () => {
    const { plan } = planner();
    plan({ kind: 'arrived', item: fresh('a') });
    expect(plan({ kind: 'refused', item: fresh('a'), stopping: true, dueAt: 5000 })).toEqual([]);
  });
});

describe('a paused endpoint', () => {
  it('parks a delivery whose endpoint is paused: held, not attempted and not dead, and its lead waits for the resume', () => {
    const { lines, plan } = planner();
    plan({ kind: 'arrived', item: fresh('a') });
    const steps = plan({ kind: 'paused', item: fresh('a') });
    expect(shape(steps)).toEqual(['decide:set-aside', 'count-parked', 'park-lead']);
    const aside = plan(decision(steps, 'set-aside'));
    expect(shape(aside)).not.toContain('publish-task');
    expect(aside[2]).toEqual({
      do: 'write',
      item: fresh('a'),
      write: { insert: { heldBy: HELD_FOR_PAUSED_ENDPOINT } },
    });
    expect(lines.blocked(K)).toEqual({ blocker: 'a', held: [] });
  });

  it('does not write a parked record again that is held for its paused endpoint already', () => {
    const { plan } = planner();
    const parked = { ...heldTurn('a', HELD_FOR_PAUSED_ENDPOINT) };
    plan({ kind: 'arrived', item: parked });
    expect(shape(plan({ kind: 'set-aside', item: parked, how: { heldBy: HELD_FOR_PAUSED_ENDPOINT } }))).toEqual([
      'save-block',
      'after-line',
      'settle',
      'decide:recorded',
    ]);
  });

  it('parks the lead on a `parked` command, and sends its held blocker first when the endpoint resumes', () => {
    const { lines, plan } = planner();
    expect(plan({ kind: 'parked' })).toEqual([{ do: 'park-lead' }]);
    lines.load(K, { blocker: 'a', held: ['b'] });
    // Not forked: the release waits for it to reach the scheduler, so it goes at the endpoint's pace.
    expect(plan({ kind: 'resume' })).toEqual([{ do: 'read-turn', id: 'a' }]);
    expect(plan({ kind: 'resume' })).toEqual([]); // under way already
  });
});

describe("a held delivery's turn", () => {
  const turn = () => {
    const p = planner();
    p.lines.load(K, { blocker: 'a', held: [] });
    p.plan({ kind: 'resume' });
    return p;
  };

  it('sends the held delivery whose record it read', () => {
    const record = heldRecord('a', 'x');
    expect(turn().plan({ kind: 'turn-read', id: 'a', record })).toEqual([{ do: 'send-record', record }]);
  });

  it('waits for the retry path when the record of its turn shows its attempt made already, and sends nothing', () => {
    // An owner recorded the attempt (its retry task out first) and lost the lead before the next block.
    const { lines, plan } = turn();
    const attempted = { ...waitingRecord('a'), attempts_made: 1 };
    expect(plan({ kind: 'turn-read', id: 'a', record: attempted })).toEqual([
      { do: 'save-block', block: { blocker: 'a', held: [] } },
    ]);
    expect(lines.blocked(K)).toEqual({ blocker: 'a', held: [] });
    expect(shape(plan({ kind: 'released', blocker: 'a' }))).toEqual(['save-block']);
  });

  it('moves on when the record of its turn ended already (a crash after its attempt)', () => {
    const { lines, plan } = turn();
    expect(plan({ kind: 'turn-read', id: 'a', record: endedRecord('a', 'delivered') })).toEqual([
      { do: 'save-block', block: null },
    ]);
    expect(lines.size).toBe(0);
  });

  it("moves on when its record is missing, or sends its event's replay that came while it was read", () => {
    const moving = turn();
    expect(moving.plan({ kind: 'turn-read', id: 'a', record: null })).toEqual([{ do: 'save-block', block: null }]);
    const replayed = turn();
    expect(replayed.plan({ kind: 'arrived', item: fresh('a') })).toEqual([]); // the running one's own event
    expect(replayed.plan({ kind: 'turn-read', id: 'a', record: null })).toEqual([{ do: 'send', item: fresh('a') }]);
  });
});

describe('a block read back at assignment', () => {
  const loaded = () => {
    const p = planner();
    p.lines.load(K, { blocker: 'a', held: ['b'] });
    return p;
  };

  it('releases a blocker that ended before its release reached the line', () => {
    const { plan } = loaded();
    expect(shape(plan({ kind: 'blocker-read', blocker: 'a', record: endedRecord('a', 'dead') }))).toEqual([
      'save-block',
      'fork(read-turn)',
    ]);
  });

  it('sends a held blocker whose turn had come', () => {
    const { plan } = loaded();
    expect(shape(plan({ kind: 'blocker-read', blocker: 'a', record: heldRecord('a', 'z') }))).toEqual([
      'fork(read-turn)',
    ]);
  });

  it('parks a lead whose blocker was held for its endpoint: it goes with the paced release, not at once', () => {
    const { lines, plan } = loaded();
    expect(plan({ kind: 'blocker-read', blocker: 'a', record: heldRecord('a', HELD_FOR_PAUSED_ENDPOINT) })).toEqual([
      { do: 'park-lead' },
    ]);
    expect(lines.blocked(K)).toEqual({ blocker: 'a', held: ['b'] });
    expect(shape(plan({ kind: 'resume' }))).toEqual(['read-turn']);
  });

  it('waits for the release of a blocker on the retry path, and for the event of one never recorded', () => {
    const { plan } = loaded();
    expect(plan({ kind: 'blocker-read', blocker: 'a', record: waitingRecord('a') })).toEqual([]);
    expect(plan({ kind: 'blocker-read', blocker: 'a', record: null })).toEqual([]);
  });

  it('holds an event that arrives behind a loaded block', () => {
    const { plan } = loaded();
    expect(shape(plan({ kind: 'arrived', item: fresh('c') }))).toEqual([
      'save-block',
      'fork(after-line, write, count-held, settle)',
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
    const { plan } = planner();
    plan({ kind: 'arrived', item: fresh('a') });
    expect(plan({ kind: 'arrived', item: fresh('a') })).toEqual([]);
    expect(shape(plan({ kind: 'attempted', item: fresh('a'), done: failed }))).toContain('publish-task');
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

describe('an attempt answered after its lease ran out', () => {
  const at = new Date(0);
  const answered = (httpStatus: number) => ({
    httpStatus,
    failure: null,
    error: null,
    responseBody: '',
    durationMs: 50,
    retryAfterMs: null,
  });

  it('has its record written if it delivered: the next owner finds it delivered and does not send it again', () => {
    expect(
      recordedLate({ at, result: answered(200), decision: { state: 'delivered', attemptsMade: 1, attemptsLeft: 0 } }),
    ).toBe(true);
  });

  it('is dropped otherwise, for the next owner to attempt: a retry task or dead letter is not its to publish', () => {
    const queued = { state: 'queued', attemptsMade: 1, attemptsLeft: 4, nextAttemptAt: 1000, tier: 'retry1' } as const;
    expect(recordedLate({ at, result: answered(503), decision: queued })).toBe(false);
    expect(
      recordedLate({ at, result: answered(410), decision: { state: 'dead', attemptsMade: 1, attemptsLeft: 0 } }),
    ).toBe(false);
    expect(recordedLate('held')).toBe(false);
  });
});
