import { RecordSignals } from '../../src/dispatcher/record-signals';
import { recordLag } from '../../src/dispatcher/task-record';
import { endedRecord, waitingRecord } from '../support/lead-shell';

// A retry task waiting for its record is woken by the record's write, not by reading it again.
describe('record signals', () => {
  it('wakes the waiters of a record at its write, and only them', async () => {
    const signals = new RecordSignals();
    const woken: string[] = [];
    const a = signals.next('dl-a', 60_000);
    const b = signals.next('dl-b', 60_000);
    void a.written.then(() => woken.push('a'));
    void b.written.then(() => woken.push('b'));
    signals.written(['dl-a']);
    await a.written;
    await Promise.resolve();
    expect(woken).toEqual(['a']);
    expect(signals.waiting).toBe(1);
    b.cancel();
    await b.written;
    expect(signals.waiting).toBe(0);
  });

  it('gives up after its timeout', async () => {
    const signals = new RecordSignals();
    const started = Date.now();
    await signals.next('dl-c', 30).written;
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    expect(signals.waiting).toBe(0);
  });
});

describe("a due task's record", () => {
  it('is behind while not written, or written without the attempt before the task', () => {
    const made = (n: number) => ({ ...waitingRecord('dl-a'), attempts_made: n });
    expect(recordLag(null, 2)).toBe('missing');
    expect(recordLag(made(0), 2)).toBe('earlier_attempt');
    expect([recordLag(made(1), 2), recordLag(made(0), 1), recordLag(endedRecord('dl-a', 'dead'), 3)]).toEqual([
      null,
      null,
      null,
    ]);
  });
});
