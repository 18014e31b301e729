import { refusedUnless } from '../shared/http/schema-parts';

// A replay's range [from, to): a rule between two fields, so the schema documents it as a 422.
// Why a range is refused, or null.
export function rangeProblem(from: Date, to: Date, maxRangeS: number): string | null {
  if (from.getTime() >= to.getTime()) return '/from must be before /to';
  if (to.getTime() - from.getTime() > maxRangeS * 1000)
    return `the range is longer than REPLAY_MAX_RANGE_S (${maxRangeS} s)`;
  return null;
}

const DEFAULT_MAX_RANGE_S = 604800; // REPLAY_MAX_RANGE_S unless configured
const refusal = (from: string, to: string) => rangeProblem(new Date(from), new Date(to), DEFAULT_MAX_RANGE_S) ?? '';

// The replay routes' 422 (manager and portal), with the answer to each range refused.
export const REPLAY_RANGE_REFUSAL = refusedUnless(
  'from is not before to, or to is more than REPLAY_MAX_RANGE_S after from (7 days by default)',
  {
    from_not_before_to: refusal('2026-11-20T00:00:00Z', '2026-11-20T00:00:00Z'),
    range_too_long: refusal('2026-11-01T00:00:00Z', '2026-11-20T00:00:00Z'),
  },
);
