import { ApiError } from '../errors';

export type IdParams = { Params: { id: string } };

// A resource looked up by the id in the path: absent means 404 not_found.
export function orNotFound<T>(found: T | null): T {
  if (found === null) throw new ApiError('not_found');
  return found;
}
