import type { Collection } from 'mongodb';
import type { PartnerKeys } from './partner-keys';
import type { PiiCipher } from '../crypto/pii-cipher';
import { apiKeyHash } from '../crypto/tokens';
import type { CallbackSigning } from '../crypto/callback-signature';
import type { PartnerDoc, PreviousSecrets } from '../mongo/documents';
import type { Redis } from '../redis/client';
import { systemClock, type Clock } from '../clock';
import { boundedRead } from '../mongo/bounded-read';

const CACHE_TTL_MS = 30_000;
// Unknown keys remembered per instance: enough for a flood of repeats, bounded against made-up ones.
const MAX_UNKNOWN_KEYS = 10_000;
// A load that sees an eviction land while it reads reads again; more than this in a row is not cached.
const MAX_LOADS = 3;
// Decrypted secrets kept: a few per partner.
const MAX_SECRETS = 10_000;
// A read MongoDB does not answer in this long fails (503 on the partner API) instead of holding
// every request that shares it; the runtime passes the intake reply timeout.
const DEFAULT_READ_TIMEOUT_MS = 5_000;

type Entry = { partner: PartnerDoc; expires: number };

// Partner look-ups for every role, cached in memory, unknown API keys too, so a stream of made-up
// keys reaches MongoDB once per key and TTL. A manager change (key rotation, new callback URL,
// disabling) is published on Redis and evicts everything on every instance at once; the TTL bounds
// staleness if such a message is ever missed. Every eviction bumps a generation: a load that was
// reading while one landed may hold what the change replaced, so it reads again before answering.
export class PartnerDirectory {
  private readonly byKeyHash = new Map<string, Entry>();
  private readonly unknownKeys = new Map<string, number>(); // key hash -> expiry, oldest first
  private readonly byIdCache = new Map<string, Entry>();
  private readonly loadsByKeyHash = new Map<string, Promise<PartnerDoc | null>>();
  private readonly secrets = new Map<string, string>(); // sealed secret -> the secret
  private generation = 0;

  constructor(
    private readonly partners: Collection<PartnerDoc>,
    private readonly keys: Pick<PartnerKeys, 'partnerOf'>,
    private readonly cipher: PiiCipher,
    private readonly channel: string,
    private readonly clock: Clock = systemClock,
    private readonly readTimeoutMs: number = DEFAULT_READ_TIMEOUT_MS,
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

  // The partner this key belongs to: its current key, or the key a rotation replaced while the
  // rotation's grace lasts (checked on every call, so the old key stops on the dot).
  async byApiKey(apiKey: string): Promise<PartnerDoc | null> {
    const hash = apiKeyHash(apiKey);
    return this.keyOwner(await this.byKeyHashCached(hash), hash);
  }

  // The partner of this key when the cache holds it (no read, no wait), else undefined.
  cachedByApiKey(apiKey: string): PartnerDoc | undefined {
    const hash = apiKeyHash(apiKey);
    const hit = this.freshByKeyHash(hash, this.nowMs());
    return hit ? (this.keyOwner(hit.partner, hash) ?? undefined) : undefined;
  }

  private freshByKeyHash(hash: string, now: number): Entry | undefined {
    const hit = this.byKeyHash.get(hash);
    return hit && hit.expires > now ? hit : undefined;
  }

  private keyOwner(partner: PartnerDoc | null, hash: string): PartnerDoc | null {
    if (!partner || partner.api_key_hash === hash) return partner;
    return inGrace(partner, this.nowMs())?.api_key_hash === hash ? partner : null;
  }

  private async byKeyHashCached(hash: string): Promise<PartnerDoc | null> {
    const now = this.nowMs();
    const hit = this.freshByKeyHash(hash, now);
    if (hit) return hit.partner;
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
    if (hit && hit.expires > this.nowMs()) return hit.partner;
    const { value: partner, settled } = await this.load((signal) => this.partners.findOne({ _id: id }, { signal }));
    if (partner && settled) this.byIdCache.set(id, { partner, expires: this.nowMs() + CACHE_TTL_MS });
    return partner;
  }

  hmacSecret(partner: PartnerDoc): string {
    return this.decrypt(partner.hmac_secret_enc);
  }

  callbackSecret(partner: PartnerDoc): string {
    return this.decrypt(partner.callback_secret_enc);
  }

  // The postback secret the manager set, or null.
  postbackToken(partner: PartnerDoc): string | null {
    return partner.postback_secret_enc ? this.decrypt(partner.postback_secret_enc) : null;
  }

  // The secrets a partner's requests may be signed with: the current one, and the one a rotation
  // replaced while its grace lasts.
  hmacSecrets(partner: PartnerDoc, nowMs = this.nowMs()): string[] {
    const previous = inGrace(partner, nowMs);
    return [this.hmacSecret(partner), ...(previous ? [this.decrypt(previous.hmac_secret_enc)] : [])];
  }

  // How callbacks to this partner are signed; during a rotation's grace with the old secret too.
  callbackSigning(partner: PartnerDoc, nowMs = this.nowMs()): CallbackSigning {
    const previous = inGrace(partner, nowMs);
    const secrets = [this.callbackSecret(partner), ...(previous ? [this.decrypt(previous.callback_secret_enc)] : [])];
    return { scheme: partner.signature_scheme ?? 'spec', secrets: [...new Set(secrets)] };
  }

  private async loadByKeyHash(hash: string): Promise<PartnerDoc | null> {
    // Two point reads: the key's partner, then the partner (partner-keys.ts).
    const { value: partner, settled } = await this.load(async (signal) => {
      const id = await this.keys.partnerOf(hash, signal);
      return id === null ? null : this.partners.findOne({ _id: id }, { signal });
    });
    if (!settled) return partner;
    const expires = this.nowMs() + CACHE_TTL_MS;
    if (partner) this.byKeyHash.set(hash, { partner, expires });
    else this.rememberUnknown(hash, expires);
    return partner;
  }

  // Reads until no eviction lands during the read (settled); the change an eviction announces is in
  // MongoDB before it is published, so the read after it sees the change. Each read is bounded: a
  // look-up by key is shared by every request with that key while it runs.
  private async load<T>(read: (signal: AbortSignal) => Promise<T>): Promise<{ value: T; settled: boolean }> {
    for (let attempt = 1; ; attempt++) {
      const generation = this.generation;
      const value = await boundedRead(this.readTimeoutMs, 'partner look-up', read);
      if (generation === this.generation) return { value, settled: true };
      if (attempt === MAX_LOADS) return { value, settled: false };
    }
  }

  private rememberUnknown(hash: string, expires: number): void {
    this.unknownKeys.delete(hash);
    this.unknownKeys.set(hash, expires);
    if (this.unknownKeys.size > MAX_UNKNOWN_KEYS)
      this.unknownKeys.delete(this.unknownKeys.keys().next().value as string);
  }

  // A secret decrypted once per sealed value, not on every request or callback (AES-GCM each time):
  // a rotation seals a new value, and every change to a partner empties the cache.
  private decrypt(sealed: string): string {
    let secret = this.secrets.get(sealed);
    if (secret === undefined) {
      secret = this.cipher.decrypt(sealed);
      if (this.secrets.size >= MAX_SECRETS) this.secrets.clear();
      this.secrets.set(sealed, secret);
    }
    return secret;
  }

  private nowMs(): number {
    return this.clock.now().getTime();
  }

  // Eviction is coarse on purpose: changes are rare, and a key rotation must drop the old key's entry.
  private evictAll(): void {
    this.generation++;
    this.secrets.clear();
    this.byKeyHash.clear();
    this.unknownKeys.clear();
    this.byIdCache.clear();
  }
}

// The secrets a rotation replaced, while its grace lasts.
export function inGrace(partner: Pick<PartnerDoc, 'previous_secrets'>, nowMs: number): PreviousSecrets | null {
  const previous = partner.previous_secrets;
  return previous && previous.until.getTime() > nowMs ? previous : null;
}
