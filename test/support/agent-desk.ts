import type { Clock } from '../../src/shared/clock';
import { localTime } from '../../src/shared/local-time';
import { createPartnerVia } from './created-partner';
import { ManagerClient } from './manager-client';
import { PartnerClient } from './partner-client';
import { startTestApp, type TestApp } from './test-app';

// What the agents' tests run on: an ingress and a processor, a manager, and one partner sending leads.
// The processor decides by `clock`, which a test moves on to the start of a shift instead of waiting.
export interface AgentDesk {
  app: TestApp;
  manager: ManagerClient;
  partner: PartnerClient;
  clock: MovableClock;
}

export async function startAgentDesk(name: string, overrides: Record<string, string> = {}): Promise<AgentDesk> {
  const clock = new MovableClock();
  const app = await startTestApp({ ROLE: 'ingress,processor', ...overrides }, undefined, clock);
  const manager = new ManagerClient(app.url);
  const partner = new PartnerClient(app.url, await createPartnerVia(manager, { name }));
  return { app, manager, partner, clock };
}

// The real time moved on by an offset: the processor's clock keeps running, and Kafka's and the
// store's own times stay true.
export class MovableClock implements Clock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  // From now on the clock reads `at` plus the time passed since.
  moveTo(at: Date): void {
    this.offsetMs = at.getTime() - Date.now();
  }
}

const hhmm = (minutes: number) =>
  `${String(Math.floor(minutes / 60) % 24).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

// A shift in `timeZone` that starts at the next whole minute at least 20 s after `now` and lasts 30
// minutes: its start, and its weekday and range as working_hours take them.
export function nextShift(timeZone: string, now: Date): { start: Date; weekday: string; range: string } {
  const start = new Date(Math.ceil((now.getTime() + 20_000) / 60_000) * 60_000);
  const local = localTime(start, timeZone);
  const from = local.hour * 60 + local.minute;
  return { start, weekday: local.weekday, range: `${hhmm(from)}-${hhmm(from + 30)}` };
}
