// What every read by `_id` keeps to, so that the local store (FerretDB 1.x on SQLite, built with
// scripts/services/ferretdb/patches) serves it from its `_id` index as MongoDB does; unpatched, it
// scans the whole table.

// Patch 0001 serves `{_id: {$in: [...]}}` from the index up to this many ids (its maxIDPushdownIn):
// longer lists are read in slices.
export const MAX_IDS_PER_READ = 500;

// Patch 0004 serves an `_id` range and its order from the index by comparing the ids' JSON text, which
// is string order only for characters its JSON writes as themselves: keys read by range are made of
// ID_FLOOR (0x23) to ID_CEILING (0x7E) without '\', '&', '<' or '>' (escaped), and ID_CEILING closes
// every prefix's range.
export const ID_FLOOR = '#';
export const ID_CEILING = '~';
