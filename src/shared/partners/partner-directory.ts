import type { Collection } from 'mongodb';
import type { PiiCipher } from '../crypto/pii-cipher';
import { apiKeyHash } from '../crypto/tokens';
import type { PartnerDoc } from '../mongo/documents';
import type { Redis } from '../redis/client';

const CACHE_TTL_MS = 30_000;
// Unknown keys remembered per instance: enough for a flood of repeats, bounded against made-up ones.
const MAX_UNKNOWN_KEYS = 10_000;

type Entry = { partner: PartnerDoc; expires: number };

// Partner look-ups for every role, cached in memory, unknown API keys too, so a stream of made-up
// keys reaches MongoDB once per key and TTL. A manager change (key rotation, new callback URL,
// disabling) is published on Redis and evicts everything on every instance at once; the TTL bounds
// staleness if such a message is ever missed.
export class PartnerDirectory {
  private readonly byKeyHash = new Map<string, Entry>();
  private readonly unknownKeys = new Map<string, number>(); // key hash -> expiry, oldest first
  private readonly byIdCache = new Map<string, Entry>();
  private readonly loadsByKeyHash = new Map<string, Promise<PartnerDoc | null>>();

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
    const now = Date.now();
    const hit = this.byKeyHash.get(hash);
    if (hit && hit.expires > now) return hit.partner;
    if ((this.unknownKeys.get(hash) ?? 0) > now) return null;
    // Concurrent requests with one key share a read.
    let load = this.loadsByKeyHash.get(hash);
    if (!load) {
      load = this.loadByKeyHash(hash).finally(() => this.loadsByKeyHash.delete(hash));
      this.loadsByKeyHash.set(hash, load);
    }
    return load;
  }

  async byId(id: string): Promise<PartnerDoc | null> {
    const hit = this.byIdCache.get(id);
    if (hit && hit.expires > Date.now()) return hit.partner;
    const partner = await this.partners.findOne({ _id: id });
    if (partner) this.byIdCache.set(id, { partner, expires: Date.now() + CACHE_TTL_MS });
    return partner;
  }

  hmacSecret(partner: PartnerDoc): string {
    return this.cipher.decrypt(partner.hmac_secret_enc);
  }

  callbackSecret(partner: PartnerDoc): string {
    return this.cipher.decrypt(partner.callback_secret_enc);
  }

  private async loadByKeyHash(hash: string): Promise<PartnerDoc | null> {
    const partner = await this.partners.findOne({ api_key_hash: hash });
    const expires = Date.now() + CACHE_TTL_MS;
    if (partner) this.byKeyHash.set(hash, { partner, expires });
    else this.rememberUnknown(hash, expires);
    return partner;
  }

  private rememberUnknown(hash: string, expires: number): void {
    this.unknownKeys.delete(hash);
    this.unknownKeys.set(hash, expires);
    if (this.unknownKeys.size > MAX_UNKNOWN_KEYS) this.unknownKeys.delete(this.unknownKeys.keys().next().value as string);
  }

  // Eviction is coarse on purpose: changes are rare, and a key rotation must drop the old key's entry.
  private evictAll(): void {
    this.byKeyHash.clear();
    this.unknownKeys.clear();
    this.byIdCache.clear();
  }
}
