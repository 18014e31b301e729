import type { Collection, Filter } from 'mongodb';
import type { PiiCipher } from '../shared/crypto/pii-cipher';
import { apiKeyHash, newCallbackSecret, newSecret } from '../shared/crypto/tokens';
import { randomId } from '../shared/ids';
import type { PartnerDoc } from '../shared/mongo/documents';
import type { PartnerDirectory } from '../shared/partners/partner-directory';
import type { PartnerKeys } from '../shared/partners/partner-keys';
import type { Redis } from '../shared/redis/client';
import type { PartnerSettings } from '../shared/schemas';
import { findPage, type Page, type PageRequest } from './pagination';
import { ALL_PARTNERS, type PartnerScope } from './partner-scope';
import { systemClock, type Clock } from '../shared/clock';

export interface IssuedSecrets {
  api_key?: string;
  hmac_secret?: string;
  callback_secret?: string;
}

export type RotatedSecrets = IssuedSecrets & { api_key: string; key_rotated_at: Date };
export type RotatableSecret = keyof IssuedSecrets;

export type PartnerView = Omit<
  PartnerDoc,
  '_id' | 'api_key_hash' | 'hmac_secret_enc' | 'callback_secret_enc' | 'postback_secret_enc' | 'previous_secrets'
> & {
  id: string;
  previous_secrets_until: Date | null;
  postback_token_set: boolean;
};

// What managers see of a partner: settings, never secrets (not even their hashes); when a rotation's
// grace ends; whether a postback token is set.
export function partnerView(doc: PartnerDoc): PartnerView {
  const {
    _id,
    api_key_hash: _k,
    hmac_secret_enc: _h,
    callback_secret_enc: _c,
    postback_secret_enc: token,
    previous_secrets: previous,
    ...rest
  } = doc;
  return { id: _id, ...rest, previous_secrets_until: previous?.until ?? null, postback_token_set: token !== undefined };
}

// Settings as stored: a postback token leaves `postbacks` and is sealed apart (postback_secret_enc),
// kept when not given, removed when given as null.
function sealedSettings(settings: PartnerSettings, cipher: PiiCipher): { set: Partial<PartnerDoc>; unset: boolean } {
  if (!settings.postbacks || settings.postbacks.token === undefined)
    return { set: settings as Partial<PartnerDoc>, unset: false };
  const { token, ...postbacks } = settings.postbacks;
  const set: Partial<PartnerDoc> = { ...(settings as Partial<PartnerDoc>), postbacks };
  if (token !== null) set.postback_secret_enc = cipher.encrypt(token);
  return { set, unset: token === null };
}

export interface PartnerServiceDeps {
  partners: Collection<PartnerDoc>;
  keys: Pick<PartnerKeys, 'add' | 'remove'>;
  cipher: PiiCipher;
  directory: Pick<PartnerDirectory, 'announceChange'>; // every instance's partner cache is evicted through Redis
  redis: Redis;
  clock?: Clock; // what stored timestamps read (the system's unless a test gives its own)
}

// Partners as managers change them: the only writer of `partners`.
export class PartnerService {
  constructor(private readonly d: PartnerServiceDeps) {}

  private now(): Date {
    return (this.d.clock ?? systemClock).now();
  }

  // Creates a partner and returns its three secrets: the only time they exist in clear outside the
  // partner's hands. The API key is kept as a hash, the HMAC secrets encrypted (we must sign with them).
  async create(
    settings: PartnerSettings & { name: string },
  ): Promise<{ partner: PartnerView; secrets: Required<IssuedSecrets> }> {
    const secrets = {
      api_key: newSecret('lk'),
      hmac_secret: newSecret('hs'),
      callback_secret: newCallbackSecret(settings.signature_scheme),
    };
    const now = this.now();
    const doc: PartnerDoc = {
      callback_events: [],
      status_mapping: {},
      field_mapping: {},
      blocked_countries: [],
      blocked_sources: [],
      blocked_ip_ranges: [],
      dedup_scope: 'global',
      ...sealedSettings(settings, this.d.cipher).set,
      name: settings.name,
      _id: randomId('pa'),
      callback_url: settings.callback_url ?? null,
      disabled: settings.disabled ?? false,
      api_key_hash: apiKeyHash(secrets.api_key),
      hmac_secret_enc: this.d.cipher.encrypt(secrets.hmac_secret),
      callback_secret_enc: this.d.cipher.encrypt(secrets.callback_secret),
      created_at: now,
      updated_at: now,
      key_rotated_at: null,
    };
    await this.d.keys.add(doc.api_key_hash, doc._id, now);
    await this.d.partners.insertOne(doc);
    return { partner: partnerView(doc), secrets };
  }

  // Sets only the fields given: a rotation writing the secrets at the same moment keeps its own.
  async update(id: string, patch: PartnerSettings): Promise<PartnerView | null> {
    const { set, unset } = sealedSettings(patch, this.d.cipher);
    const updated = await this.d.partners.findOneAndUpdate(
      { _id: id },
      { $set: { ...set, updated_at: this.now() }, ...(unset && { $unset: { postback_secret_enc: '' } }) },
      { returnDocument: 'after' },
    );
    if (!updated) return null;
    await this.d.directory.announceChange(this.d.redis, id);
    return partnerView(updated);
  }

  // Issues a new API key (and, on request, new HMAC secrets). Without grace the old key stops working
  // at once on every instance: its hash is gone from MongoDB and every partner cache is evicted
  // through Redis. With graceSeconds the replaced key and secrets stay valid that long
  // (previous_secrets; a rotation during a grace ends the earlier grace).
  async rotate(
    id: string,
    which: readonly ('hmac_secret' | 'callback_secret')[] = [],
    graceSeconds = 0,
  ): Promise<RotatedSecrets | null> {
    return this.rotateSecrets(id, ['api_key', ...which], graceSeconds) as Promise<RotatedSecrets | null>;
  }

  // The same, for any of the three secrets (the portal may rotate an HMAC secret and keep its key).
  // The secrets are written only while they are still those the rotation read (a compare-and-set):
  // rotations at once take turns, each one's grace keeping the key the one before it issued.
  async rotateSecrets(
    id: string,
    which: readonly RotatableSecret[],
    graceSeconds = 0,
  ): Promise<(IssuedSecrets & { key_rotated_at: Date }) | null> {
    const now = this.now();
    const { partners, cipher } = this.d;
    const fresh = { api_key: newSecret('lk'), hmac_secret: newSecret('hs') };
    for (;;) {
      const doc = await partners.findOne({ _id: id });
      if (!doc) return null;
      const { issued, set, ended } = rotation(doc, which, graceSeconds, now, fresh, cipher);
      if (set.api_key_hash) await this.d.keys.add(set.api_key_hash, id, now);
      const written = await partners.updateOne(secretsAsRead(doc), { $set: set });
      if (written.matchedCount === 0) continue; // another rotation came first: rotate what it left
      await this.d.keys.remove(ended);
      await this.d.directory.announceChange(this.d.redis, id);
      return issued;
    }
  }

  // Read from MongoDB, not the directory cache: a manager must see a change made a moment ago.
  find(id: string): Promise<PartnerDoc | null> {
    return this.d.partners.findOne({ _id: id });
  }

  // An affiliate manager's partners by _id (a few); everyone else's, all of them.
  list(page: PageRequest, scope: PartnerScope = ALL_PARTNERS): Promise<Page<PartnerView>> {
    return findPage(this.d.partners, scope === null ? {} : { _id: { $in: [...scope] } }, page, partnerView);
  }
}

// What a rotation of `doc` writes, what it hands out, and the key hashes that stop authenticating: the
// grace this rotation ends, and without a grace the replaced key; never the key in use.
function rotation(
  doc: PartnerDoc,
  which: readonly RotatableSecret[],
  graceSeconds: number,
  now: Date,
  fresh: { api_key: string; hmac_secret: string },
  cipher: PiiCipher,
): { issued: IssuedSecrets & { key_rotated_at: Date }; set: Partial<PartnerDoc>; ended: string[] } {
  const issued: IssuedSecrets & { key_rotated_at: Date } = { key_rotated_at: now };
  const set: Partial<PartnerDoc> = { key_rotated_at: now, updated_at: now };
  if (which.includes('api_key')) {
    issued.api_key = fresh.api_key;
    set.api_key_hash = apiKeyHash(fresh.api_key);
  }
  if (which.includes('hmac_secret')) {
    issued.hmac_secret = fresh.hmac_secret;
    set.hmac_secret_enc = cipher.encrypt(fresh.hmac_secret);
  }
  if (which.includes('callback_secret')) {
    issued.callback_secret = newCallbackSecret(doc.signature_scheme);
    set.callback_secret_enc = cipher.encrypt(issued.callback_secret);
  }
  set.previous_secrets =
    graceSeconds > 0
      ? {
          api_key_hash: doc.api_key_hash,
          hmac_secret_enc: doc.hmac_secret_enc,
          callback_secret_enc: doc.callback_secret_enc,
          until: new Date(now.getTime() + graceSeconds * 1000),
        }
      : null;
  const current = set.api_key_hash ?? doc.api_key_hash;
  const ended = [
    ...(doc.previous_secrets ? [doc.previous_secrets.api_key_hash] : []),
    ...(graceSeconds > 0 ? [] : [doc.api_key_hash]),
  ].filter((hash) => hash !== current);
  return { issued, set, ended };
}

// The partner as a rotation read it: every rotation changes a secret (each encrypted under a fresh
// nonce) and its time, so these name the secrets it replaces.
function secretsAsRead(doc: PartnerDoc): Filter<PartnerDoc> {
  return {
    _id: doc._id,
    api_key_hash: doc.api_key_hash,
    hmac_secret_enc: doc.hmac_secret_enc,
    callback_secret_enc: doc.callback_secret_enc,
    key_rotated_at: doc.key_rotated_at,
  };
}
