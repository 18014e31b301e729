import { ConfigError } from '../errors';

export type Role = 'ingress' | 'processor' | 'dispatcher';
export const ROLES: readonly Role[] = ['ingress', 'processor', 'dispatcher'];

// ROLE: `all` or a comma-separated list of the roles this process runs.
export function parseRoles(raw: string): Role[] {
  if (raw === 'all') return [...ROLES];
  const roles = raw.split(',').map((s) => s.trim());
  for (const role of roles) {
    if (!ROLES.includes(role as Role))
      throw new ConfigError('ROLE', `must be all or a list of ${ROLES.join(', ')}, got "${role}"`);
  }
  return roles as Role[];
}
