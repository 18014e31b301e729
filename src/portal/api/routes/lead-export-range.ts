import { ApiError } from '../../../shared/errors';

// How much of the lead list one CSV export may cover: a range of at most MAX_EXPORT_DAYS, so an
// export is as long as that range's leads, never the whole store's.
export const MAX_EXPORT_DAYS = 31;
const DAY_MS = 86_400_000;

export const EXPORT_PROBLEMS = {
  from_not_before_to: 'from must be before to',
  range_too_long: `an export covers at most ${MAX_EXPORT_DAYS} days`,
} as const;

export function exportRange(from: string, to: string): void {
  const span = Date.parse(to) - Date.parse(from);
  if (!(span > 0)) throw new ApiError('invalid_request', { detail: EXPORT_PROBLEMS.from_not_before_to });
  if (span > MAX_EXPORT_DAYS * DAY_MS)
    throw new ApiError('invalid_request', { detail: EXPORT_PROBLEMS.range_too_long });
}
