import type { LeadDoc } from '../shared/mongo/documents';
import { everyInterval, type PeriodicTask } from '../shared/periodic-task';
import type { Runtime } from '../shared/runtime';
import { chooseAgent } from './agent-choice';
import type { EventRelay } from './event-relay';
import type { ProcessorMetrics } from './metrics';

const SCAN_BATCH = 200;

// Hands new leads to agents: right after acceptance, and on a timer for leads that found no
// eligible agent (they wait in `new` until one appears). Assignment is a conditional update on the
// lead's status under the lead's lock, so two processors can never assign one lead twice.
export class Distributor {
  private task: PeriodicTask | null = null;

  constructor(private readonly rt: Runtime, private readonly relay: EventRelay, private readonly metrics: ProcessorMetrics) {}

  start(intervalMs: number): void {
    this.task = everyInterval('distribution-scan', intervalMs, () => this.scan(), this.rt.logger);
  }

  async stop(): Promise<void> {
    await this.task?.stop();
  }

  async scan(): Promise<void> {
    const waiting = await this.rt.mongo.collections.leads.find({ status: 'new' }).sort({ created_at: 1 }).limit(SCAN_BATCH).toArray();
    for (const lead of waiting) await this.assign(lead);
  }

  async assign(lead: LeadDoc): Promise<void> {
    const { agents, leads } = this.rt.mongo.collections;
    const agent = chooseAgent(await agents.find({ active: true }).toArray(), lead);
    if (!agent) {
      this.metrics.assignments.inc({ outcome: 'no_agent' });
      return;
    }
    const now = new Date();
    // Losing a concurrent last_assigned_at write only skews the round robin, so agents take no lock.
    await agents.updateOne({ _id: agent._id }, { $set: { last_assigned_at: now } });
    const updated = await this.rt.locks.withLock(`lead:${lead._id}`, () => leads.findOneAndUpdate(
      { _id: lead._id, status: 'new' },
      {
        $set: { status: 'assigned', agent_id: agent._id, updated_at: now },
        $push: { history: { from: 'new', to: 'assigned', at: now, why: `assigned to ${agent._id}`, source: 'distribution', event: 'lead.status_changed', is_depositor: lead.is_depositor } },
        $inc: { pending_events: 1 },
      },
      { returnDocument: 'after' },
    ));
    if (!updated) return; // assigned or moved meanwhile
    this.metrics.assignments.inc({ outcome: 'assigned' });
    await this.relay.publish(updated);
  }
}
