import type { AgentChanges } from '../shared/agent-changes';
import type { Config, CryptoConfig, IntakeConfig } from '../shared/config';
import type { PiiCipher } from '../shared/crypto/pii-cipher';
import type { Redis } from '../shared/redis/client';
import type { RoleClients, RoleHandle } from '../shared/role';
import { loadStatuses } from '../shared/status-catalog';
import { IntakeDecisionStore } from '../shared/store/intake-decisions';
import { LeadKeyStore } from '../shared/store/lead-keys';
import { LeadRefStore } from '../shared/store/lead-refs';
import { LeadStore } from '../shared/store/leads';
import { AgentRoster } from './agent-roster';
import { BurstCounter } from './burst-counter';
import { CapGate } from './cap-gate';
import { DedupClaims } from './dedup-claims';
import { Distribution } from './distribution';
import { startIdleCheckForwarder } from './idle-check-forwarder';
import { IdleChecks } from './idle-checks';
import { IdAllocator } from './id-allocator';
import { IntakeBatch } from './intake/batch';
import { startIntakeConsumer } from './intake-consumer';
import { LeadCommands } from './lead-commands';
import { Lifecycle } from './lifecycle';
import { startLifecycleConsumer } from './lifecycle/consumer';
import { processorMetrics } from './metrics';
import { startReports, type ReportsDeps } from './reports';
import { ParkedMessages } from './parked-messages';
import { Retention } from './retention';
import { IntakeKeyStore } from '../shared/store/intake-keys';
import { LeadOpener } from './lead-opener';
import { RiskAssessment } from './risk-assessment';
import { WaitingLeads } from './waiting-leads';
import { ListIndex } from '../shared/store/list-index';
import type { Clock } from '../shared/clock';

const DAY_MS = 86_400_000;

export interface ProcessorParts {
  roster: AgentRoster;
  batch: IntakeBatch;
  lifecycle: Lifecycle;
  distribution: Distribution;
  retention: Retention;
}

// What the processor's pieces are built from: the stores and clients they use, and their settings.
export interface ProcessorPartsDeps extends Omit<RoleClients, 'consumers' | 'metrics'> {
  config: Pick<Config, 'rules'> & {
    intake: Pick<IntakeConfig, 'idempotencyTtlS' | 'keyHours'>;
    crypto: Pick<CryptoConfig, 'hashKey'>;
  };
  cipher: PiiCipher;
}

// What the processor role is given (src/role-deps.ts builds it): its pieces' and its reports', and
// where a manager's changes to agents are heard.
export interface ProcessorDeps extends ProcessorPartsDeps, ReportsDeps {
  agentChanges: AgentChanges;
  subscriber: Redis;
  clock: Clock;
}

// The processor's pieces over the stores, wired once (the role below, and tests that drive them
// on a clock of their own).
export function processorParts(d: ProcessorPartsDeps): ProcessorParts {
  const { rules, intake } = d.config;
  const c = d.mongo.collections;
  const statuses = loadStatuses(rules.statusCatalogFile);
  const isTerminal = (status: string) => statuses.isTerminal(status);
  const leads = new LeadStore(c.leads, { list: new ListIndex(c.leadList), isTerminal });
  // What this process sets waiting, parks or hands out wakes its distribution when it is at rest.
  const woken = () => distribution.woken();
  const waiting = new WaitingLeads(c.waitingLeads, woken);
  const parked = new ParkedMessages(c.parkedMessages, woken);
  const claims = new DedupClaims(d.mongo.db);
  const decisions = new IntakeDecisionStore(d.mongo.db, intake.idempotencyTtlS);
  const roster = new AgentRoster(c.agents, c.agentActivity, woken);
  const intakeKeys = new IntakeKeyStore(d.mongo.db);
  const keys = new LeadKeyStore(d.mongo.db, intakeKeys);
  const risk = new RiskAssessment(new BurstCounter(d.redis, d.config.crypto.hashKey, rules.riskBurstWindowMs), {
    perIp: rules.riskBurstPerIp,
    perSubnet: rules.riskBurstPerSubnet,
  });
  const batch = new IntakeBatch({
    partners: d.partners,
    decisions,
    claims,
    refs: new LeadRefStore(c.leadRefs),
    leads,
    waiting,
    roster,
    ids: new IdAllocator(c.idBlocks, 'lead', rules.idBlockSize),
    keys,
    intakeKeys,
    rules,
    opener: new LeadOpener(d.cipher, d.config.crypto.hashKey),
    risk,
    isTerminal,
    // A command's cap verdict outlives its stored decision, so no repeat of it is ever counted again.
    caps: new CapGate(d.redis, intake.idempotencyTtlS + DAY_MS / 1000),
  });
  const lifecycle = new Lifecycle({
    leads,
    parked,
    parkMaxMs: rules.crmParkMaxMs,
    clients: c.clients,
    deposits: c.deposits,
    waiting,
    roster,
    statuses,
    keys,
    claims,
  });
  const commands = new LeadCommands({ producer: d.producer, codec: d.codec, topics: d.topics });
  const retention = new Retention(keys, intakeKeys, commands, rules.personalDataRetentionDays);
  // Partners are few: the longest window is read whole, once an hour.
  const longestDedupWindowMs = async () =>
    DAY_MS *
    Math.max(
      rules.dedupWindowDays,
      ...(await c.partners.find({}, { projection: { dedup_window_days: 1 } }).toArray()).map(
        (p) => p.dedup_window_days ?? 0,
      ),
    );
  const distribution = new Distribution({
    roster,
    waiting,
    parked,
    decisions,
    claims,
    intakeKeyHours: intake.keyHours,
    intakeKeys,
    longestDedupWindowMs,
    commands,
    retention,
    logger: d.logger,
  });
  return { roster, batch, lifecycle, distribution, retention };
}

// The processor owns every decision about a lead: intake (dedup, rules, ids, storage, assignment),
// then, as the lead's one owner, the lifecycle driven by CRM events and its own commands. Both
// publish the events their batches made; nothing is swept or polled over the stored leads.
export async function startProcessor(d: ProcessorDeps): Promise<RoleHandle> {
  const metrics = processorMetrics(d.metrics);
  const { roster, batch, lifecycle, distribution } = processorParts(d);
  await roster.refresh();
  await d.agentChanges.listen(d.subscriber, () => {
    roster.evict();
    distribution.soon();
  });
  const idleChecks = new IdleChecks(d.codec, d.config.rules.idleRedistributionS * 1000);
  const publishing = {
    producer: d.producer,
    codec: d.codec,
    topics: d.topics,
    metrics,
    logger: d.logger,
    idleChecks,
    clock: d.clock,
  };
  const started = [
    await startIntakeConsumer({ ...publishing, consumers: d.consumers, batch }),
    await startLifecycleConsumer({ ...publishing, consumers: d.consumers, lifecycle }),
    await startIdleCheckForwarder({ ...publishing, consumers: d.consumers }),
    ...(await startReports(d)),
  ];
  distribution.start(d.config.rules.distributionIntervalMs, d.clock);

  return {
    name: 'processor',
    readiness: started.map((s) => s.readiness),
    async stop() {
      await distribution.stop();
      await Promise.all(started.map((s) => s.stop()));
    },
  };
}
