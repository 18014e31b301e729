import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { VALIDATION_REASONS } from '../../src/ingress/validation-reasons';
import { REJECTION_GROUPS, rejectionGroup } from '../../src/shared/reports/cell-counts';

// docs/partners.md's intake outcomes table is the complete list of `reason` values (spec 7.1 leaves
// it open): every kind of validation reason the ingress gives, and a rejection for every group the
// reports count, each one they know.
const partners = readFileSync(join(__dirname, '..', '..', 'docs', 'partners.md'), 'utf8');
const rows = [...partners.matchAll(/^\| `(validation_error|rejected|duplicate)` \| `([^`]+)` \|/gm)].map((m) => ({
  status: m[1]!,
  kind: m[2]!.split(':')[0]!,
}));
const kindsOf = (status: string) => new Set(rows.filter((r) => r.status === status).map((r) => r.kind));

describe('the intake outcomes of docs/partners.md', () => {
  it('name every kind of validation reason, and no other', () =>
    expect(kindsOf('validation_error')).toEqual(new Set(Object.keys(VALIDATION_REASONS).map((k) => k.split(':')[0]))));

  it('name a rejection for every group the reports count, each known to them', () => {
    const groups = [...kindsOf('rejected')].map((kind) => rejectionGroup(kind));
    expect(new Set(groups)).toEqual(new Set(REJECTION_GROUPS.filter((g) => g !== 'other')));
  });
});
