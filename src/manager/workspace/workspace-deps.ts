import type { Collection } from 'mongodb';
import { LeadCommands } from '../../processor/commands';
import type { Clock } from '../../shared/clock';
import type { LeadDoc } from '../../shared/mongo/documents';
import type { Statuses } from '../../shared/status-catalog';
import type { AgentService } from '../agent-service';
import type { AuditLog } from '../audit-log';
import type { ManagerOptions, ManagerServices } from '../services';
import { AgentActions } from './agent-actions';
import { AgentQueueReader } from './agent-queue-reader';
import { LeadCards } from './lead-card';
import { MaskedPhones } from './masked-phones';

// What the workspace's routes use, built once over the manager's clients and services.
export interface WorkspaceDeps {
  queue: AgentQueueReader;
  cards: LeadCards;
  actions: AgentActions;
  leads: Collection<LeadDoc>;
  agents: AgentService;
  commands: LeadCommands;
  audit: AuditLog;
  statuses: Statuses;
  clock: Clock;
}

export function workspaceDeps(
  o: Pick<ManagerOptions, 'mongo' | 'cipher' | 'kafka'>,
  s: Pick<ManagerServices, 'agents' | 'audit' | 'leadKeys' | 'leadCommands' | 'partners'>,
  statuses: Statuses,
  clock: Clock,
): WorkspaceDeps {
  const c = o.mongo.collections;
  const phones = new MaskedPhones(o.cipher, s.leadKeys);
  const isTerminal = (status: string) => statuses.isTerminal(status);
  return {
    queue: new AgentQueueReader(c.leads, c.leadList, phones, isTerminal),
    cards: new LeadCards({ leads: c.leads, phones, partners: s.partners, statuses }),
    actions: new AgentActions(o.kafka),
    leads: c.leads,
    agents: s.agents,
    commands: s.leadCommands,
    audit: s.audit,
    statuses,
    clock,
  };
}
