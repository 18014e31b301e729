import type { Collection } from 'mongodb';
import type { Logger } from '../shared/logger';
import type { EndpointHealthDoc } from '../shared/mongo/documents';
import type { Redis } from '../shared/redis/client';

// Ids per `_id: {$in}` read: within what the local store serves from its _id index (src/shared/store/id-index.ts).
const IN_CHUNK = 100;

// Which partners' endpoints are paused, in memory in every dispatcher: the check before an attempt
// is a set lookup. Paused endpoints are read once at start (endpoint_health is one small document per
// partner); after that the endpoint's keeper announces each change on Redis and the gate reads that
// partner again by _id. Paused ones are also read again now and then (refreshPaused), so a resume
// whose announcement was missed is seen within that interval.
export class EndpointGate {
  private readonly pausedIds = new Set<string>();
  private readonly resumeListeners: ((partnerId: string) => void)[] = [];

  constructor(
    private readonly health: Collection<EndpointHealthDoc>,
    private readonly channel: string,
    private readonly logger: Logger,
  ) {}

  async start(subscriber: Redis): Promise<void> {
    for (const doc of await this.health.find({ state: 'paused' }, { projection: { _id: 1 } }).toArray())
      this.pausedIds.add(doc._id);
    await subscriber.subscribe(this.channel);
    subscriber.on('message', (channel: string, partnerId: string) => {
      if (channel !== this.channel) return;
      this.refresh([partnerId]).catch((err: unknown) =>
        this.logger.warn({ partner_id: partnerId, err: (err as Error).message }, 'could not read an endpoint state'),
      );
    });
  }

  announce(publisher: Redis, partnerId: string): Promise<number> {
    return publisher.publish(this.channel, partnerId);
  }

  pausedCount(): number {
    return this.pausedIds.size;
  }

  isPaused(partnerId: string): boolean {
    return this.pausedIds.has(partnerId);
  }

  onResume(listener: (partnerId: string) => void): void {
    this.resumeListeners.push(listener);
  }

  refreshPaused(): Promise<void> {
    return this.refresh([...this.pausedIds]);
  }

  private async refresh(ids: readonly string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += IN_CHUNK) {
      const chunk = ids.slice(i, i + IN_CHUNK);
      const docs = await this.health.find({ _id: { $in: chunk } }, { projection: { _id: 1, state: 1 } }).toArray();
      const pausedNow = new Set(docs.filter((d) => d.state === 'paused').map((d) => d._id));
      for (const id of chunk) this.set(id, pausedNow.has(id));
    }
  }

  private set(partnerId: string, isPaused: boolean): void {
    const was = this.pausedIds.has(partnerId);
    if (isPaused) this.pausedIds.add(partnerId);
    else this.pausedIds.delete(partnerId);
    if (was && !isPaused) for (const listener of this.resumeListeners) listener(partnerId);
  }
}
