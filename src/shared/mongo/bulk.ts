import {
  MongoBulkWriteError,
  type Abortable,
  type Collection,
  type Document,
  type Filter,
  type FindOptions,
  type OptionalUnlessRequiredId,
  type WithId,
} from 'mongodb';
import { MAX_IDS_PER_READ } from '../store/id-index';

const DUPLICATE_KEY = 11000;

// Inserts every document it can (unordered) and returns the _ids that already existed. The unique
// _id is the fence of the batch design: a redelivered batch, a zombie consumer or a concurrent
// claimant collides on it instead of writing twice. Any other write error is thrown.
export async function insertAllNew<T extends Document & { _id: string }>(
  collection: Collection<T>,
  docs: readonly T[],
): Promise<Set<string>> {
  const taken = new Set<string>();
  if (docs.length === 0) return taken;
  try {
    await collection.insertMany(docs as unknown as OptionalUnlessRequiredId<T>[], { ordered: false });
  } catch (err) {
    for (const i of duplicateKeysOf(err)) taken.add((docs[i] as T)._id);
  }
  return taken;
}

// The indexes of an unordered bulk write's operations that failed on a duplicate key; the error
// itself is thrown again if anything else failed.
export function duplicateKeysOf(err: unknown): number[] {
  if (!(err instanceof MongoBulkWriteError)) throw err;
  const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
  if (errors.length === 0 || errors.some((e) => e.code !== DUPLICATE_KEY)) throw err;
  return errors.map((e) => e.index);
}

// Documents by _id, in as many index look-ups as the id list needs.
export async function findByIds<T extends Document & { _id: string }>(
  collection: Collection<T>,
  ids: Iterable<string>,
  options?: FindOptions & Abortable,
): Promise<Map<string, WithId<T>>> {
  const unique = [...new Set(ids)];
  const found = new Map<string, WithId<T>>();
  for (let i = 0; i < unique.length; i += MAX_IDS_PER_READ) {
    const slice = unique.slice(i, i + MAX_IDS_PER_READ);
    const docs = await collection.find({ _id: { $in: slice } } as Filter<T>, options).toArray();
    for (const doc of docs) found.set(doc._id as string, doc);
  }
  return found;
}
