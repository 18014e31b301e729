import { randomBytes } from 'node:crypto';
import { MongoBulkWriteError, type Collection, type Db } from 'mongodb';
import { findByIds } from '../mongo/bulk';
import type { IntakeKeyDoc } from '../mongo/documents';
import { WriteGatherer, type ItemOutcomes } from '../mongo/write-gatherer';

const PREFIX = 'intake_keys_';
const HOUR_MS = 3_600_000;
// How long the first key of a batch waits for others (each request of the ingress stores one key):
// at 200 leads/s a command a lead was the largest single line of the store's work.
const GATHER_MS = 1;

// yyyymmddhh of the UTC hour holding `at`.
const hourOf = (at: Date): string => at.toISOString().slice(0, 13).replace(/[-T]/g, '');

// A lead's data key in transit. The intake command on Kafka carries the lead's ciphertexts and only
// a reference to their key (`ik-<hour>-<random>`), never the key, wrapped or not: the topics keep a
// command for 7 days and their dead letters for 30, and nothing there can be destroyed. The key
// itself is stored here by the ingress before the command leaves; the processor copies it to the
// lead's own key (lead-keys.ts) when it stores the lead, and erasing the lead destroys both. Keys
// live in one collection per UTC hour, dropped whole once INTAKE_KEY_HOURS have passed: after that no
// retained command of any lead (accepted, refused, a duplicate, dead-lettered) can be opened.
export class IntakeKeyStore {
  private readonly gathered = new WriteGatherer<IntakeKeyDoc>((docs) => this.insertAll(docs), GATHER_MS);

  constructor(private readonly db: Db) {}

  static newRef(at: Date): string {
    return `ik-${hourOf(at)}-${randomBytes(12).toString('hex')}`;
  }

  // Stored with the keys other requests put meanwhile, in one insert per hour.
  async put(doc: IntakeKeyDoc): Promise<void> {
    hourOfRef(doc._id); // a malformed reference fails its own caller, not the batch
    await this.gathered.put(doc);
  }

  private async insertAll(docs: IntakeKeyDoc[]): Promise<ItemOutcomes> {
    const outcomes: (Error | null)[] = docs.map(() => null);
    const groups = new Map<string, number[]>();
    docs.forEach((doc, i) => {
      const hour = hourOfRef(doc._id);
      groups.set(hour, [...(groups.get(hour) ?? []), i]);
    });
    for (const [hour, indexes] of groups) {
      try {
        await this.collection(hour).insertMany(
          indexes.map((i) => docs[i] as IntakeKeyDoc),
          { ordered: false },
        );
      } catch (err) {
        const failed = err instanceof MongoBulkWriteError ? [err.writeErrors].flat() : null;
        if (failed && failed.length > 0)
          for (const e of failed) outcomes[indexes[e.index] as number] = new Error(e.errmsg ?? 'not stored');
        else for (const i of indexes) outcomes[i] = err as Error;
      }
    }
    return outcomes;
  }

  // The wrapped keys of these references that still exist, by reference.
  async byRefs(refs: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (const [hour, group] of byHour(refs)) {
      for (const [ref, doc] of await findByIds(this.collection(hour), group)) found.set(ref, doc.dek_enc);
    }
    return found;
  }

  async destroy(refs: readonly string[]): Promise<void> {
    for (const [hour, group] of byHour(refs)) await this.collection(hour).deleteMany({ _id: { $in: group } });
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

function byHour(refs: readonly string[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const ref of refs) {
    const hour = hourOfRef(ref);
    groups.set(hour, [...(groups.get(hour) ?? []), ref]);
  }
  return groups;
}
