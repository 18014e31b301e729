import { localTime, WEEKDAYS } from '../shared/local-time';
import type { AgentDoc } from '../shared/mongo/documents';

type Shifts = Pick<AgentDoc, 'time_zone' | 'working_hours'>;

function minutes(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  return (h as number) * 60 + (m as number);
}

function range(text: string): { from: number; to: number } {
  const [from, to] = text.split('-') as [string, string];
  return { from: minutes(from), to: minutes(to) };
}

// Whether the agent works at `at`, by its weekly hours in its own time zone. No hours: always on
// shift. A range that ends at or before its start runs past midnight: "22:00-06:00" on Monday
// covers Monday from 22:00 and Tuesday until 06:00.
export function onShift(agent: Shifts, at: Date): boolean {
  const hours = agent.working_hours;
  if (!hours) return true;
  const t = localTime(at, agent.time_zone ?? 'UTC');
  const now = t.hour * 60 + t.minute;
  const yesterday = WEEKDAYS[(WEEKDAYS.indexOf(t.weekday) + 6) % 7] as keyof typeof hours;
  const today = (hours[t.weekday] ?? []).map(range).some(({ from, to }) => now >= from && (to <= from || now < to));
  const fromYesterday = (hours[yesterday] ?? []).map(range).some(({ from, to }) => to <= from && now < to);
  return today || fromYesterday;
}
