import { recordedLate } from '../../src/dispatcher/lead-owner/lead-writes';
import { arrival, isFreshRound, replayedAlready, roundFrom } from '../../src/dispatcher/lead-owner/rounds';
import { endedRecord, heldRecord, waitingRecord } from '../support/lead-shell';

// Which deliveries start a round of attempts (rounds.ts), and which attempt answered late is recorded
// (lead-writes.ts); what a lead's line does with them is the table in dispatcher-delivery-table.test.ts.

describe('which deliveries start a round', () => {
  it('never sends a recorded delivery again, and never restarts a replay of one under way', () => {
    expect(arrival({ recorded: true, active: false, wasActive: false })).toBe('skip');
    expect(arrival({ recorded: false, active: true, wasActive: true })).toBe('join');
    expect(arrival({ recorded: false, active: false, wasActive: true })).toBe('skip'); // recorded meanwhile
    expect(arrival({ recorded: false, active: false, wasActive: false })).toBe('arrive');
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
