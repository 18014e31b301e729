import type { Collection } from 'mongodb';
import type { PartnerDoc, PartnerKeyDoc } from '../mongo/documents';
import { insertAllNew } from '../mongo/bulk';

// Which partner an API key hash belongs to: one document per hash that authenticates now (the
// partner's key, and the one a rotation replaced while its grace lasts), so a key is looked up by
// `_id` however many partners there are; a request with a made-up key costs one point read, never
// a scan of the partners' previous keys. The partner document stays the judge: a hash whose grace
// ended, or that a later rotation replaced, still leads to its partner, whose document refuses it.
export class PartnerKeys {
  constructor(private readonly keys: Collection<PartnerKeyDoc>) {}

  async partnerOf(hash: string, signal?: AbortSignal): Promise<string | null> {
    return (await this.keys.findOne({ _id: hash }, { signal }))?.partner_id ?? null;
  }

  // Written before the partner document that names the hash: a key never authenticates unseen.
  async add(hash: string, partnerId: string, now: Date): Promise<void> {
    await insertAllNew(this.keys, [{ _id: hash, partner_id: partnerId, created_at: now }]);
  }

  async remove(hashes: readonly string[]): Promise<void> {
    if (hashes.length > 0) await this.keys.deleteMany({ _id: { $in: [...hashes] } });
  }

  // The keys of partners stored before this collection (run at start; partners are few).
  async backfill(partners: Collection<PartnerDoc>, now: Date): Promise<void> {
    const docs = await partners.find({}, { projection: { api_key_hash: 1, previous_secrets: 1 } }).toArray();
    await insertAllNew(
      this.keys,
      docs.flatMap((p) =>
        [p.api_key_hash, ...(p.previous_secrets ? [p.previous_secrets.api_key_hash] : [])].map((hash) => ({
          _id: hash,
          partner_id: p._id,
          created_at: now,
        })),
      ),
    );
  }
}
