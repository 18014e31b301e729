import type { Collection } from 'mongodb';
import type { PiiCipher } from '../shared/crypto/pii-cipher';
import { apiKeyHash, newCallbackSecret, newSecret } from '../shared/crypto/tokens';
import { randomId } from '../shared/ids';
import type { PartnerDoc } from '../shared/mongo/documents';
import type { PartnerDirectory } from '../shared/partners/partner-directory';
import type { PartnerKeys } from '../shared/partners/partner-keys';
import type { DocumentLocks } from '../shared/redis/document-locks';
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
  locks: DocumentLocks;
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

  // Under the partner's lock: FerretDB rewrites whole documents, so a concurrent rotation could
  // otherwise be undone by this write (bringing an old API key back).
  async update(id: string, patch: PartnerSettings): Promise<PartnerView | null> {
    const { set, unset } = sealedSettings(patch, this.d.cipher);
    const updated = await this.d.locks.withLock(`partner:${id}`, () =>
      this.d.partners.findOneAndUpdate(
        { _id: id },
        { $set: { ...set, updated_at: this.now() }, ...(unset && { $unset: { postback_secret_enc: '' } }) },
        { returnDocument: 'after' },
      ),
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
  async rotateSecrets(
    id: string,
    which: readonly RotatableSecret[],
    graceSeconds = 0,
  ): Promise<(IssuedSecrets & { key_rotated_at: Date }) | null> {
    const now = this.now();
    const rotated = await this.d.locks.withLock(`partner:${id}`, async () => {
      const { partners } = this.d;
      const doc = await partners.findOne({ _id: id });
      if (!doc) return null;
      const issued: IssuedSecrets & { key_rotated_at: Date } = { key_rotated_at: now };
      const set: Partial<PartnerDoc> = { key_rotated_at: now, updated_at: now };
      if (which.includes('api_key')) {
        issued.api_key = newSecret('lk');
        set.api_key_hash = apiKeyHash(issued.api_key);
      }
      if (which.includes('hmac_secret')) {
        issued.hmac_secret = newSecret('hs');
        set.hmac_secret_enc = this.d.cipher.encrypt(issued.hmac_secret);
      }
      if (which.includes('callback_secret')) {
        issued.callback_secret = newCallbackSecret(doc.signature_scheme);
        set.callback_secret_enc = this.d.cipher.encrypt(issued.callback_secret);
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
      if (set.api_key_hash) await this.d.keys.add(set.api_key_hash, id, now);
      await partners.updateOne({ _id: id }, { $set: set });
      // The hashes that no longer authenticate: the grace this rotation ended, and without a grace the
      // old key; never the key in use (a rotation of secrets alone keeps it).
      const ended = [
        ...(doc.previous_secrets ? [doc.previous_secrets.api_key_hash] : []),
        ...(graceSeconds > 0 ? [] : [doc.api_key_hash]),
      ];
      await this.d.keys.remove(ended.filter((hash) => hash !== current));
      return issued;
    });
    if (!rotated) return null;
    await this.d.directory.announceChange(this.d.redis, id);
    return rotated;
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
