import type { Collection } from 'mongodb';
import type { PiiCipher } from '../crypto/pii-cipher';
import { apiKeyHash } from '../crypto/tokens';
import type { PartnerDoc } from '../mongo/documents';
import type { Redis } from '../redis/client';

const CACHE_TTL_MS = 30_000;

// Partner look-ups for every role, cached in memory. A manager change (key rotation, new callback
// URL, disabling) is published on Redis and evicts the entry on every instance at once; the TTL
// bounds staleness if such a message is ever missed.
export class PartnerDirectory {
  private readonly byKeyHash = new Map<string, { partner: PartnerDoc; expires: number }>();
  private readonly byIdCache = new Map<string, { partner: PartnerDoc; expires: number }>();

  constructor(
    private readonly partners: Collection<PartnerDoc>,
    private readonly cipher: PiiCipher,
    private readonly channel: string,
  ) {}

  async listen(subscriber: Redis): Promise<void> {
    await subscriber.subscribe(this.channel);
    subscriber.on('message', (channel: string) => {
      if (channel === this.channel) this.evictAll();
    });
  }

  async announceChange(publisher: Redis, partnerId: string): Promise<void> {
    this.evictAll();
    await publisher.publish(this.channel, partnerId);
  }

  async byApiKey(apiKey: string): Promise<PartnerDoc | null> {
    const hash = apiKeyHash(apiKey);
    return this.cached(this.byKeyHash, hash, () => this.partners.findOne({ api_key_hash: hash }));
  }

  async byId(id: string): Promise<PartnerDoc | null> {
    return this.cached(this.byIdCache, id, () => this.partners.findOne({ _id: id }));
  }

  hmacSecret(partner: PartnerDoc): string {
    return this.cipher.decrypt(partner.hmac_secret_enc);
  }

  callbackSecret(partner: PartnerDoc): string {
    return this.cipher.decrypt(partner.callback_secret_enc);
  }

  // Eviction is coarse on purpose: changes are rare, and a key rotation must drop the old key's entry.
  private evictAll(): void {
    this.byKeyHash.clear();
    this.byIdCache.clear();
  }

  private async cached(
    cache: Map<string, { partner: PartnerDoc; expires: number }>,
    key: string,
    load: () => Promise<PartnerDoc | null>,
  ): Promise<PartnerDoc | null> {
    const hit = cache.get(key);
    if (hit && hit.expires > Date.now()) return hit.partner;
    const partner = await load();
    // Misses are not cached: a stream of made-up keys must not grow this map.
    if (partner) cache.set(key, { partner, expires: Date.now() + CACHE_TTL_MS });
    return partner;
  }
}
