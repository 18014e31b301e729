import type { LeadDoc } from '../shared/mongo/documents';
import { everyInterval, type PeriodicTask } from '../shared/periodic-task';
import type { Runtime } from '../shared/runtime';
import { pendingEvents } from './lead-events';
import type { ProcessorMetrics } from './metrics';

// Publishes the events a lead change wrote into its history (the outbox) to the lead events topic,
// keyed by lead id, then advances published_seq with a compare-and-set. A crash between the
// MongoDB write and the publish loses nothing: the periodic sweep republishes every lead with
// pending_events > 0. Publish and mark run under the lead's lock. A crash after the publish and before the mark republishes the same
// deterministic events, which the dispatcher recognises by event_id.
export class EventRelay {
  private readonly locks = new Map<string, Promise<void>>();
  private task: PeriodicTask | null = null;

  constructor(private readonly rt: Runtime, private readonly metrics: ProcessorMetrics) {}

  // Serialised per lead inside this process, so its events leave in history order.
  publish(lead: LeadDoc): Promise<void> {
    const previous = this.locks.get(lead._id) ?? Promise.resolve();
    const run = previous.then(() => this.publishNow(lead._id, lead));
    const tracked = run.catch(() => undefined).finally(() => {
      if (this.locks.get(lead._id) === tracked) this.locks.delete(lead._id);
    });
    this.locks.set(lead._id, tracked);
    return run;
  }

  start(intervalMs: number): void {
    this.task = everyInterval('outbox-sweep', intervalMs, () => this.sweep(), this.rt.logger);
  }

  async stop(): Promise<void> {
    await this.task?.stop();
    await Promise.allSettled([...this.locks.values()]);
  }

  async sweep(): Promise<void> {
    const pending = await this.rt.mongo.collections.leads.find({ pending_events: { $gt: 0 } }).limit(500).toArray();
    for (const lead of pending) await this.publish(lead);
  }

  private async publishNow(leadId: string, known: LeadDoc): Promise<void> {
    if (known.pending_events <= 0) return;
    await this.rt.locks.withLock(`lead:${leadId}`, () => this.publishLocked(leadId));
  }

  private async publishLocked(leadId: string): Promise<void> {
    const leads = this.rt.mongo.collections.leads;
    // The caller's copy may predate another change; the stored published_seq decides what is new.
    const lead = await leads.findOne({ _id: leadId });
    if (!lead || lead.pending_events <= 0) return;
    const events = pendingEvents(lead);
    if (events.length === 0) return;
    const messages = await Promise.all(events.map(async (e) => ({ key: e.lead_id, value: await this.rt.codec.encode('leadEvents', e) })));
    await this.rt.producer.send({ topic: this.rt.topics.leadEvents, messages });
    await leads.updateOne(
      { _id: leadId, published_seq: lead.published_seq },
      { $set: { published_seq: lead.history.length }, $inc: { pending_events: -events.length } },
    );
    for (const e of events) this.metrics.leadEvents.inc({ event: e.event });
  }
}
