import { chooseAgent, type RankedAgent } from '../../src/processor/agent-choice';
import { onShift } from '../../src/processor/agent-shifts';

// 2026-11-23 is a Monday.
const mon = (hhmm: string) => new Date(`2026-11-23T${hhmm}:00Z`);
const tue = (hhmm: string) => new Date(`2026-11-24T${hhmm}:00Z`);

describe('agent working hours', () => {
  it('is always on shift without working hours', () => {
    expect(onShift({}, mon('03:00'))).toBe(true);
    expect(onShift({ working_hours: null }, mon('03:00'))).toBe(true);
  });

  it('works inside a range, from its start up to (not including) its end', () => {
    const agent = { working_hours: { mon: ['09:00-12:00', '13:00-17:30'] } };
    expect(onShift(agent, mon('08:59'))).toBe(false);
    expect(onShift(agent, mon('09:00'))).toBe(true);
    expect(onShift(agent, mon('12:00'))).toBe(false);
    expect(onShift(agent, mon('17:29'))).toBe(true);
    expect(onShift(agent, mon('17:30'))).toBe(false);
    expect(onShift(agent, tue('10:00'))).toBe(false); // a day left out is off
  });

  it('reads the hours in the agent time zone', () => {
    const agent = { time_zone: 'America/New_York', working_hours: { mon: ['09:00-17:00'] } };
    expect(onShift(agent, mon('10:00'))).toBe(false); // 05:00 in New York
    expect(onShift(agent, mon('15:00'))).toBe(true); // 10:00 in New York
    expect(onShift(agent, mon('21:30'))).toBe(true); // 16:30 in New York
    expect(onShift(agent, tue('01:00'))).toBe(false); // Monday 20:00 in New York
  });

  it('runs a range that ends at or before its start past midnight', () => {
    const agent = { working_hours: { mon: ['22:00-06:00'] } };
    expect(onShift(agent, mon('21:59'))).toBe(false);
    expect(onShift(agent, mon('23:00'))).toBe(true);
    expect(onShift(agent, tue('05:59'))).toBe(true);
    expect(onShift(agent, tue('06:00'))).toBe(false);
    expect(onShift({ working_hours: { mon: ['00:00-24:00'] } }, mon('23:59'))).toBe(true);
  });
});

const agent = (id: string, over: Partial<RankedAgent> = {}): RankedAgent => ({
  _id: id,
  name: id,
  active: true,
  countries: [],
  languages: [],
  turn: 0,
  created_at: new Date(0),
  updated_at: new Date(0),
  ...over,
});

describe('agent choice with shifts', () => {
  it('skips agents off shift, and the agent a lead is taken from', () => {
    const agents = [
      agent('ag-day', { working_hours: { mon: ['09:00-17:00'] } }),
      agent('ag-night', { working_hours: { mon: ['17:00-09:00'] } }),
    ];
    expect(chooseAgent(agents, {}, mon('10:00'))?._id).toBe('ag-day');
    expect(chooseAgent(agents, {}, mon('20:00'))?._id).toBe('ag-night');
    expect(chooseAgent(agents, {}, mon('10:00'), 'ag-day')).toBeNull();
    expect(chooseAgent([...agents, agent('ag-any')], {}, mon('10:00'), 'ag-day')?._id).toBe('ag-any');
  });
});
