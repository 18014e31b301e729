import type { Document } from 'mongodb';

export type StoreKind = 'mongodb' | 'ferretdb';

// FerretDB answers buildInfo with its own version beside the MongoDB version it imitates.
export function storeKind(buildInfo: Document): StoreKind {
  return buildInfo.ferretdbVersion === undefined ? 'mongodb' : 'ferretdb';
}
