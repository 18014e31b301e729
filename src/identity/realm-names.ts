// Where an account signs in: the manager API and console, or the partner portal (/portal/). One
// account base serves both; an account, a session and a one-time link each belong to one realm and
// are unknown to the other.
export const REALMS = ['manager', 'portal'] as const;
export type Realm = (typeof REALMS)[number];
