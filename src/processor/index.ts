import type { RoleHandle } from '../shared/role';
import type { Runtime } from '../shared/runtime';
import { loadStatuses } from '../shared/status-catalog';
import { IntakeDecisionStore } from '../shared/store/intake-decisions';
import { LeadRefStore } from '../shared/store/lead-refs';
import { LeadStore } from '../shared/store/leads';
import { AgentRoster } from './agent-roster';
import { DedupClaims } from './dedup-claims';
import { Distribution } from './distribution';
import { IdAllocator } from './id-allocator';
import { IntakeBatch } from './intake-batch';
import { startIntakeConsumer } from './intake-consumer';
import { Lifecycle } from './lifecycle';
import { startLifecycleConsumer } from './lifecycle-consumer';
import { processorMetrics } from './metrics';
import { ParkedMessages } from './parked-messages';
import { WaitingLeads } from './waiting-leads';

// The processor owns every decision about a lead: intake (dedup, rules, ids, storage, assignment),
// then, as the lead's one owner, the lifecycle driven by CRM events and its own commands. Both
// publish the events their batches made; nothing is swept or polled over the stored leads.
export async function startProcessor(rt: Runtime): Promise<RoleHandle> {
  const metrics = processorMetrics(rt.metrics);
  const { rules, intake } = rt.config;
  const c = rt.mongo.collections;
  const leads = new LeadStore(c.leads);
  const waiting = new WaitingLeads(c.waitingLeads);
  const decisions = new IntakeDecisionStore(rt.mongo.db, intake.idempotencyTtlS);
  const roster = new AgentRoster(c.agents, c.agentActivity);
  await roster.refresh();
  const consumers = { kafka: rt.kafka, config: rt.config, codec: rt.codec, topicNames: rt.topics, logger: rt.logger, admin: rt.admin };
  const publishing = { producer: rt.producer, codec: rt.codec, topics: rt.topics, metrics, logger: rt.logger };

  const batch = new IntakeBatch({
    partners: rt.partners, decisions, claims: new DedupClaims(c.dedupClaims), refs: new LeadRefStore(c.leadRefs), leads, waiting, roster,
    ids: new IdAllocator(c.idBlocks, 'lead', rules.idBlockSize), rules,
  });
  const parked = new ParkedMessages(c.parkedMessages);
  const lifecycle = new Lifecycle({
    leads, parked, parkMaxMs: rules.crmParkMaxMs, clients: c.clients, deposits: c.deposits, waiting, roster, statuses: loadStatuses(rules.statusCatalogFile),
  });
  const started = [
    await startIntakeConsumer({ ...publishing, consumers, batch }),
    await startLifecycleConsumer({ ...publishing, consumers, lifecycle }),
  ];
  const distribution = new Distribution({ roster, waiting, parked, decisions, producer: rt.producer, codec: rt.codec, topics: rt.topics, logger: rt.logger });
  distribution.start(rules.distributionIntervalMs);

  return {
    name: 'processor',
    readiness: started.map((s) => s.readiness),
    async stop() {
      await distribution.stop();
      await Promise.all(started.map((s) => s.stop()));
    },
  };
}
