import type { RoleHandle } from '../shared/role';
import type { Runtime } from '../shared/runtime';
import { loadStatuses } from '../shared/status-catalog';
import { startCrmConsumer } from './crm-consumer';
import { Distributor } from './distributor';
import { EventRelay } from './event-relay';
import { IdAllocator } from './id-allocator';
import { IntakeDecider } from './intake-decider';
import { startIntakeConsumer } from './intake-consumer';
import { Lifecycle } from './lifecycle';
import { processorMetrics } from './metrics';

// The processor owns every decision about a lead: intake (dedup, rules, ids, storage), distribution
// to agents, and the lifecycle driven by CRM events; it publishes lead events through the outbox.
export async function startProcessor(rt: Runtime): Promise<RoleHandle> {
  const metrics = processorMetrics(rt.metrics);
  const { rules } = rt.config;
  const ids = new IdAllocator(rt.mongo.collections.idBlocks, 'lead', rules.idBlockSize);
  const relay = new EventRelay(rt, metrics);
  const distributor = new Distributor(rt, relay, metrics);
  const decider = new IntakeDecider(rt, ids, rules);
  const lifecycle = new Lifecycle(rt, loadStatuses(rules.statusCatalogFile), relay);

  const started = [
    await startIntakeConsumer(rt, decider, relay, distributor, metrics),
    await startCrmConsumer(rt, lifecycle, metrics),
  ];
  relay.start(rules.outboxRelayIntervalMs);
  distributor.start(rules.distributionIntervalMs);

  return {
    name: 'processor',
    readiness: started.map((s) => s.readiness),
    async stop() {
      await Promise.all(started.map((s) => s.consumer.disconnect()));
      await distributor.stop();
      await relay.stop();
    },
  };
}
