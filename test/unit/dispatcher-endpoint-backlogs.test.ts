import { EndpointBacklogs, savedFrom } from '../../src/dispatcher/lead-owner/endpoint-backlogs';

// An endpoint's backlog on a partition: the consumer sets the endpoint's events aside from its start
// on, until the backlog, read back from Kafka, has caught up with it; what is saved as its start never
// passes a delivery read back and not recorded yet.
const saves: number[] = [];
const save = async (from: number) => (saves.push(from), true);

beforeEach(() => {
  saves.length = 0;
});

it('sets aside every event of the endpoint on the partition from where the backlog opened, nothing before it', () => {
  const backlogs = new EndpointBacklogs();
  expect(backlogs.intake('pa-1', 0, 5)).toBe('handle');
  backlogs.open('pa-1', 0, 10, save);
  expect(saves).toEqual([10]);
  expect(backlogs.intake('pa-1', 0, 10)).toBe('set-aside');
  expect(backlogs.intake('pa-1', 0, 11)).toBe('set-aside');
  expect(backlogs.intake('pa-1', 0, 9)).toBe('handle'); // decided before it opened
  expect(backlogs.intake('pa-1', 1, 12)).toBe('handle'); // another partition
  expect(backlogs.intake('pa-2', 0, 12)).toBe('handle'); // another endpoint
});

it("hands the endpoint back to the consumer at an offset read back already, which stays the backlog's: the rest comes to the consumer in order", () => {
  const backlogs = new EndpointBacklogs();
  const b = backlogs.open('pa-1', 0, 10, save);
  backlogs.readBack(b, 10, true);
  backlogs.readBack(b, 11, false);
  expect(backlogs.intake('pa-1', 0, 12)).toBe('set-aside'); // not read back yet
  expect(backlogs.intake('pa-1', 0, 11)).toBe('read-back'); // the consumer behind the reader: caught up
  expect(backlogs.intake('pa-1', 0, 10)).toBe('read-back'); // never taken twice
  expect(b.merged).toBe(true);
  expect(backlogs.intake('pa-1', 0, 13)).toBe('handle');
});

it('is caught up once read back to where the consumer has decided, and done once what it read back is recorded', () => {
  const backlogs = new EndpointBacklogs();
  const b = backlogs.open('pa-1', 0, 10, save);
  expect(backlogs.caughtUp(b)).toBe(false); // the consumer decided nothing on the partition yet
  backlogs.saw(0, 14);
  backlogs.readBack(b, 12, true);
  expect(backlogs.caughtUp(b)).toBe(false);
  backlogs.readBack(b, 14, true);
  expect(backlogs.caughtUp(b)).toBe(true);
  expect(backlogs.done(b)).toBe(false); // 12 and 14 are not recorded
  backlogs.settled(b, 14);
  expect(savedFrom(b)).toBe(12);
  backlogs.settled(b, 12);
  expect(savedFrom(b)).toBe(15);
  expect(backlogs.done(b)).toBe(true);
});

it('opened again while what it read back is still recording: its saved start stays at the first unrecorded one', () => {
  const backlogs = new EndpointBacklogs();
  const b = backlogs.open('pa-1', 0, 10, save);
  backlogs.readBack(b, 10, true);
  backlogs.saw(0, 10);
  expect(backlogs.caughtUp(b)).toBe(true);
  expect(backlogs.intake('pa-1', 0, 20)).toBe('handle');
  const again = backlogs.open('pa-1', 0, 21, save);
  expect(again).toBe(b);
  expect(saves).toEqual([10, 10]);
  expect(backlogs.intake('pa-1', 0, 20)).toBe('handle');
  expect(backlogs.intake('pa-1', 0, 21)).toBe('set-aside');
});

it('restores a saved backlog at an assignment: everything of the endpoint from its start is set aside, and read back from there', () => {
  const backlogs = new EndpointBacklogs();
  const b = backlogs.restore('pa-1', 3, 40, 45); // the consumer's group committed past its start
  expect(b.readable).toBe(true);
  expect(backlogs.intake('pa-1', 3, 39)).toBe('handle');
  expect(backlogs.intake('pa-1', 3, 40)).toBe('set-aside');
  expect(backlogs.onPartition(3)).toEqual([b]);
  expect(backlogs.ofEndpoint('pa-1')).toEqual([b]);
  backlogs.remove(b);
  expect(backlogs.size).toBe(0);
});

it("is read back only once the consumer has handed every event before its start to its lead's line", () => {
  const backlogs = new EndpointBacklogs();
  // The group committed before the start: the consumer first handles the events up to it again.
  const b = backlogs.restore('pa-1', 3, 40, 30);
  expect(b.readable).toBe(false);
  backlogs.saw(3, 35);
  backlogs.batchDone(3);
  expect(b.readable).toBe(false);
  backlogs.saw(3, 39);
  backlogs.batchDone(3);
  expect(b.readable).toBe(true);
  // One opened by a batch is read once that batch is done.
  const opened = backlogs.open('pa-2', 3, 41, save);
  expect(opened.readable).toBe(false);
  backlogs.saw(3, 41);
  backlogs.batchDone(3);
  expect(opened.readable).toBe(true);
});
