// What one report cell (partner × country × source × day) counts, and the arithmetic on it. Pure.
// Counts only: no money amount, no personal field ever reaches a cell.

export const COUNTERS = [
  'received',
  'accepted',
  'duplicates',
  'validation_errors',
  'rejected_country',
  'rejected_source',
  'rejected_ip',
  'rejected_risk',
  'rejected_cap',
  'rejected_other',
  'contacted',
  'ftd',
  'rtd',
  'chargebacks',
] as const;
export type Counter = (typeof COUNTERS)[number];

export const REJECTION_GROUPS = ['country', 'source', 'ip', 'risk', 'cap', 'other'] as const;
export type RejectionGroup = (typeof REJECTION_GROUPS)[number];

// A rejection reason's group, by its prefix before ':' (country_blocked:DE, cap_reached:daily).
const GROUP_OF_PREFIX: Readonly<Record<string, RejectionGroup>> = {
  country_blocked: 'country',
  source_blocked: 'source',
  ip_blocked: 'ip',
  risk_rejected: 'risk',
  cap_reached: 'cap',
};

export function rejectionGroup(reason: string | undefined): RejectionGroup {
  const prefix = (reason ?? '').split(':')[0] ?? '';
  return GROUP_OF_PREFIX[prefix] ?? 'other';
}

export const rejectionCounter = (reason: string | undefined): Counter => `rejected_${rejectionGroup(reason)}`;

// Durations for the two medians are kept as histograms of fixed buckets, so they add up across
// cells, days and writers. Upper bounds in seconds: every minute up to an hour (so minutes are told
// apart where agents work), then coarser up to 90 days; anything longer falls in the last bucket.
export const DURATION_BOUNDS_S: readonly number[] = [
  ...Array.from({ length: 60 }, (_, i) => (i + 1) * 60),
  5400,
  7200,
  10800,
  14400,
  21600,
  28800,
  43200,
  86400,
  172800,
  259200,
  604800,
  1209600,
  2592000,
  7776000,
];

export type DurationKind = 'tc' | 'tf'; // to first contact, to FTD

// A histogram bucket's field name in a cell: tc12 counts durations in bucket 12.
export const bucketField = (kind: DurationKind, bucket: number): string => `${kind}${bucket}`;

export function bucketOf(seconds: number): number {
  const s = Math.max(0, seconds);
  const i = DURATION_BOUNDS_S.findIndex((bound) => s <= bound);
  return i === -1 ? DURATION_BOUNDS_S.length - 1 : i;
}

// A cell's numbers: counters and histogram buckets by field name; an absent field is 0.
export type Counts = Record<string, number>;

export function addCounts(target: Counts, delta: Readonly<Counts>): Counts {
  for (const [field, n] of Object.entries(delta)) if (n !== 0) target[field] = (target[field] ?? 0) + n;
  return target;
}

export function isEmpty(counts: Readonly<Counts>): boolean {
  return Object.values(counts).every((n) => n === 0);
}

// The median of a histogram, as the upper bound (seconds) of the bucket holding the middle value
// (the lower of the two middles of an even count); null when nothing was measured.
export function medianSeconds(counts: Readonly<Counts>, kind: DurationKind): number | null {
  let total = 0;
  for (let i = 0; i < DURATION_BOUNDS_S.length; i++) total += counts[bucketField(kind, i)] ?? 0;
  if (total === 0) return null;
  const rank = Math.ceil(total / 2);
  let seen = 0;
  for (let i = 0; i < DURATION_BOUNDS_S.length; i++) {
    seen += counts[bucketField(kind, i)] ?? 0;
    if (seen >= rank) return DURATION_BOUNDS_S[i] as number;
  }
  return null;
}
