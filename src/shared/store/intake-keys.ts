import { randomBytes } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { findByIds } from '../mongo/bulk';
import type { IntakeKeyDoc } from '../mongo/documents';

const PREFIX = 'intake_keys_';
const HOUR_MS = 3_600_000;

// yyyymmddhh of the UTC hour holding `at`.
export const hourOf = (at: Date): string => at.toISOString().slice(0, 13).replace(/[-T]/g, '');

// A lead's data key in transit. The intake command on Kafka carries the lead's ciphertexts and only
// a reference to their key (`ik-<hour>-<random>`), never the key, wrapped or not: the topics keep a
// command for 7 days and their dead letters for 30, and nothing there can be destroyed. The key
// itself is stored here by the ingress before the command leaves (ahead of need: data-key-stock.ts);
// the processor copies it to the lead's own key (lead-keys.ts) when it stores the lead, and erasing
// the lead destroys both. Keys
// live in one collection per UTC hour, dropped whole once INTAKE_KEY_HOURS have passed: after that no
// retained command of any lead (accepted, refused, a duplicate, dead-lettered) can be opened.
export class IntakeKeyStore {
  constructor(private readonly db: Db) {}

  static newRef(at: Date): string {
    return `ik-${hourOf(at)}-${randomBytes(12).toString('hex')}`;
  }

  // In one insert per hour; any key not stored fails the whole call.
  async putAll(docs: readonly IntakeKeyDoc[]): Promise<void> {
    for (const [hour, group] of byHour(docs, (doc) => doc._id))
      await this.collection(hour).insertMany(group, { ordered: false });
  }

  // The wrapped keys of these references that still exist, by reference.
  async byRefs(refs: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (const [hour, group] of byHour(refs, (ref) => ref)) {
      for (const [ref, doc] of await findByIds(this.collection(hour), group)) found.set(ref, doc.dek_enc);
    }
    return found;
  }

  async destroy(refs: readonly string[]): Promise<void> {
    for (const [hour, group] of byHour(refs, (ref) => ref))
      await this.collection(hour).deleteMany({ _id: { $in: group } });
  }

  // Drops the hours past `keepHours` (and the hour holding the cutoff only once all of it is past).
  async dropExpired(now: Date, keepHours: number): Promise<string[]> {
    const cutoff = hourOf(new Date(now.getTime() - keepHours * HOUR_MS));
    const names = (await this.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    const expired = names.filter((n) => n.startsWith(PREFIX) && n.slice(PREFIX.length) < cutoff);
    for (const name of expired) await this.db.dropCollection(name).catch(() => undefined);
    return expired;
  }

  private collection(hour: string): Collection<IntakeKeyDoc> {
    return this.db.collection<IntakeKeyDoc>(`${PREFIX}${hour}`);
  }
}

function hourOfRef(ref: string): string {
  const hour = /^ik-(\d{10})-[0-9a-f]+$/.exec(ref)?.[1];
  if (!hour) throw new Error('not an intake key reference');
  return hour;
}

function byHour<T>(items: readonly T[], refOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const hour = hourOfRef(refOf(item));
    groups.set(hour, [...(groups.get(hour) ?? []), item]);
  }
  return groups;
}
