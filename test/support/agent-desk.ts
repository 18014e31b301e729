import { localTime } from '../../src/shared/local-time';
import { createPartnerVia } from './created-partner';
import { ManagerClient } from './manager-client';
import { PartnerClient } from './partner-client';
import { startTestApp, type TestApp } from './test-app';

// What the agents' tests run on: an ingress and a processor, a manager, and one partner sending leads.
export interface AgentDesk {
  app: TestApp;
  manager: ManagerClient;
  partner: PartnerClient;
}

export async function startAgentDesk(name: string, overrides: Record<string, string> = {}): Promise<AgentDesk> {
  const app = await startTestApp({ ROLE: 'ingress,processor', ...overrides });
  const manager = new ManagerClient(app.url);
  return { app, manager, partner: new PartnerClient(app.url, await createPartnerVia(manager, { name })) };
}

const hhmm = (minutes: number) =>
  `${String(Math.floor(minutes / 60) % 24).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

// A shift in `timeZone` that starts at the next whole minute at least 20 s away and lasts 30 minutes:
// its start, and its weekday and range as working_hours take them.
export function nextShift(timeZone: string): { start: Date; weekday: string; range: string } {
  const start = new Date(Math.ceil((Date.now() + 20_000) / 60_000) * 60_000);
  const local = localTime(start, timeZone);
  const from = local.hour * 60 + local.minute;
  return { start, weekday: local.weekday, range: `${hhmm(from)}-${hhmm(from + 30)}` };
}
