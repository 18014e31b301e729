import type { Redis } from './redis/client';

// A manager's change to agents (one created, one changed: its countries, languages, shift, whether
// it is active), announced on Redis once it is stored, so every processor reads its agents again
// before its next choice instead of at its next distribution tick. The tick still re-reads them,
// which bounds how stale a roster gets if an announcement is ever missed.
export class AgentChanges {
  constructor(private readonly channel: string) {}

  async listen(subscriber: Redis, onChange: () => void): Promise<void> {
    await subscriber.subscribe(this.channel);
    subscriber.on('message', (channel: string) => {
      if (channel === this.channel) onChange();
    });
  }

  async announce(publisher: Redis, agentId: string): Promise<void> {
    await publisher.publish(this.channel, agentId);
  }
}
